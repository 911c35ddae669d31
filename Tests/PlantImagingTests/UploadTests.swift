import PlantGuideCore
import Foundation
import PlantImaging
import Testing

@Suite struct UploadTests {
    @Test func shrinksToTheLongSideAndKeepsTheAspect() throws {
        let data = try Fixtures.data("photo-large.jpg")
        let upload = try UploadPreparer(maxLongSide: 200).prepare(data)
        #expect(upload.width == 200 && upload.height == 150)
        let decoded = try ImageDecoder().decode(upload.jpeg)
        #expect(decoded.format == .jpeg && decoded.image.width == 200 && decoded.image.height == 150)
        #expect(upload.originalSHA256 == sha256Hex(data))
        #expect(upload.quality == 90)
    }

    @Test func neverEnlarges() throws {
        let upload = try UploadPreparer().prepare(try Fixtures.data("photo.png"))
        #expect(upload.width == 160 && upload.height == 120)
    }

    @Test(arguments: ["photo.heic", "photo.webp", "orientation-6.jpg"])
    func writesAnUprightJPEGWithoutMetadata(name: String) throws {
        let upload = try UploadPreparer().prepare(try Fixtures.data(name))
        let bytes = [UInt8](upload.jpeg)
        #expect(Array(bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(!Self.markers(bytes).contains(0xE1), "an APP1 (EXIF/XMP) segment was written")
        #expect(!Self.markers(bytes).contains(0xE2), "an APP2 (ICC) segment was written")
        let decoded = try ImageDecoder().decode(upload.jpeg)
        #expect(decoded.orientation == 1)
        let original = try Fixtures.decode(name).image
        #expect(decoded.image.width == original.width && decoded.image.height == original.height)
        // JPEG quality 90 with 4:2:0 chroma on a small picture with hard edges.
        #expect(meanAbsoluteDifference(decoded.image.pixels, original.pixels) < 8)
        #expect(PerceptualHash.distance(upload.perceptualHash, PerceptualHash.dHash(original)) <= 4)
    }

    @Test func lowersTheQualityToFitTheByteLimit() throws {
        let data = try Fixtures.data("photo-large.jpg")
        let generous = try UploadPreparer().prepare(data)
        let tight = try UploadPreparer(maxLongSide: 1280, quality: 90, maxBytes: generous.jpeg.count - 1).prepare(data)
        #expect(tight.jpeg.count < generous.jpeg.count)
        #expect(tight.quality < 90 || tight.width < generous.width)
    }

    @Test func refusesWhatItCannotDecode() throws {
        #expect(throws: ImagingError.empty) { try UploadPreparer().prepare(Data()) }
        #expect(throws: ImagingError.truncated(.png)) { try UploadPreparer().prepare(try Fixtures.data("hostile/truncated.png")) }
    }

    /// Marker bytes of the segments before the scan data.
    static func markers(_ bytes: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            found.append(marker)
            if marker == 0xDA { break }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return found
    }
}
