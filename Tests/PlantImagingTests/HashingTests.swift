import PlantGuideCore
import Foundation
import PlantImaging
import Testing

@Suite struct HashingTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandardVectors(message: String, digest: String) {
        #expect(sha256Hex(Data(message.utf8)) == digest)
    }

    @Test func sha256StreamsAcrossBlockBoundaries() {
        let message = Data((0..<1000).map { UInt8($0 % 251) })
        var hasher = SHA256Hasher()
        for start in stride(from: 0, to: message.count, by: 37) {
            hasher.update(message[start..<min(start + 37, message.count)])
        }
        let streamed = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(streamed == sha256Hex(message))
        #expect(sha256Hex(Data(repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func dHashIsStableAcrossFormatsAndApartForOtherPictures() throws {
        let png = PerceptualHash.dHash(try Fixtures.decode("photo.png").image)
        let jpeg = PerceptualHash.dHash(try Fixtures.decode("photo.jpg").image)
        let heic = PerceptualHash.dHash(try Fixtures.decode("photo.heic").image)
        let larger = PerceptualHash.dHash(try Fixtures.decode("photo-large.jpg").image)
        // The same design drawn at 96×64, stored turned with an EXIF orientation.
        let redrawn = PerceptualHash.dHash(try Fixtures.decode("orientation-6.jpg").image)
        let image = try Fixtures.decode("photo.png").image
        let mirrored = try #require(RGBImage(width: image.width, height: image.height, pixels: Self.mirrored(image)))
        let other = PerceptualHash.dHash(mirrored)
        #expect(PerceptualHash.distance(png, png) == 0)
        #expect(PerceptualHash.distance(png, jpeg) <= 6)
        #expect(PerceptualHash.distance(png, heic) <= 6)
        #expect(PerceptualHash.distance(png, larger) <= 10)
        #expect(PerceptualHash.distance(png, redrawn) <= 10)
        #expect(PerceptualHash.distance(png, other) > 20)
    }

    static func mirrored(_ image: RGBImage) -> [UInt8] {
        var pixels = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                let from = (y * image.width + image.width - 1 - x) * 3, to = (y * image.width + x) * 3
                for c in 0..<3 { pixels[to + c] = image.pixels[from + c] }
            }
        }
        return pixels
    }

    @Test func hammingDistanceCountsBits() {
        #expect(PerceptualHash.distance(0, 0) == 0)
        #expect(PerceptualHash.distance(0, .max) == 64)
        #expect(PerceptualHash.distance(0b1011, 0b0001) == 2)
    }
}
