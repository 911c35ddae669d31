import Foundation
import PlantGuideCore
import PlantImaging
import Testing

@Suite struct DecodingTests {
    @Test(arguments: [("photo.jpg", ImageFormat.jpeg), ("photo.png", .png), ("photo.webp", .webp), ("photo.heic", .heic)])
    func decodesEveryFormat(name: String, format: ImageFormat) throws {
        let decoded = try Fixtures.decode(name)
        #expect(decoded.format == format)
        #expect(decoded.image.width == 160 && decoded.image.height == 120)
        #expect(decoded.originalWidth == 160 && decoded.originalHeight == 120)
        #expect(decoded.image.pixels.count == 160 * 120 * 3)
        // The picture's red rectangle sits at about (30, 40); the formats agree on its colour.
        let (red, green, blue) = decoded.image.pixel(x: 30, y: 40)
        #expect(red > 180 && green < 90 && blue < 90)
    }

    @Test(arguments: 1...8)
    func appliesEveryExifOrientation(orientation: Int) throws {
        let reference = try Fixtures.decode("reference.png").image
        let decoded = try Fixtures.decode("orientation-\(orientation).jpg")
        #expect(decoded.orientation == orientation)
        #expect(decoded.image.width == reference.width && decoded.image.height == reference.height)
        // Stored at JPEG quality 100 without chroma subsampling: only rounding noise remains.
        #expect(meanAbsoluteDifference(decoded.image.pixels, reference.pixels) < 2)
    }

    @Test func appliesTheWebPExifOrientation() throws {
        let reference = try Fixtures.decode("reference.png").image
        let decoded = try Fixtures.decode("orientation-6.webp")
        #expect(decoded.orientation == 6 && decoded.originalWidth == 64 && decoded.originalHeight == 96)
        #expect(decoded.image.width == 96 && decoded.image.height == 64)
        #expect(meanAbsoluteDifference(decoded.image.pixels, reference.pixels) < 0.5)
    }

    @Test(arguments: ["gray.jpg", "gray.png", "gray16.png", "rgb16.png", "palette.png", "alpha.png", "interlaced.png", "alpha.webp", "cmyk.jpg"])
    func normalisesToEightBitRGB(name: String) throws {
        let decoded = try Fixtures.decode(name)
        let expected = try Fixtures.decode("\(name).expected.png").image
        #expect(decoded.image.width == expected.width && decoded.image.height == expected.height)
        #expect(meanAbsoluteDifference(decoded.image.pixels, expected.pixels) < 1)
    }

    @Test func scalesLargeJPEGsInTheDCT() throws {
        let data = try Fixtures.data("photo-large.jpg")
        let full = try ImageDecoder().decode(data)
        let reduced = try ImageDecoder().decode(data, minimumShortSide: 100)
        #expect(full.scaleDenominator == 1 && full.image.width == 320)
        // 240 / 2 = 120 ≥ 100 but 240 / 4 = 60 is not: half size.
        #expect(reduced.scaleDenominator == 2)
        #expect(reduced.image.width == 160 && reduced.image.height == 120)
        #expect(reduced.originalWidth == 320 && reduced.originalHeight == 240)
    }

    @Test func shrinksHEICWhileConvertingAndUsesALargeEnoughThumbnail() throws {
        let source = try Fixtures.decode("photo-large.jpg").image  // 320×240
        let plain = try ImageEncoder.heic(source, quality: 90)
        let full = try ImageDecoder().decode(plain)
        let halved = try ImageDecoder().decode(plain, minimumShortSide: 100)
        #expect(full.image.width == 320 && full.image.height == 240)
        #expect(halved.image.width == 160 && halved.image.height == 120)
        #expect(halved.originalWidth == 320 && halved.originalHeight == 240)
        // The shrunk picture is the full one averaged 2×2.
        let averaged = Self.halve(full.image)
        #expect(meanAbsoluteDifference(halved.image.pixels, averaged) < 2.5)

        let withThumbnail = try ImageEncoder.heic(source, quality: 90, thumbnailSide: 160)
        let fromThumbnail = try ImageDecoder().decode(withThumbnail, minimumShortSide: 120)
        #expect(fromThumbnail.image.width == 160 && fromThumbnail.image.height == 120)
        #expect(fromThumbnail.originalWidth == 320)
        #expect(meanAbsoluteDifference(fromThumbnail.image.pixels, averaged) < 6)
        // A thumbnail below the asked size is not used.
        let notThumbnail = try ImageDecoder().decode(withThumbnail, minimumShortSide: 200)
        #expect(notThumbnail.image.width == 320)
    }

    static func halve(_ image: RGBImage) -> [UInt8] {
        var out: [UInt8] = []
        for y in stride(from: 0, to: image.height, by: 2) {
            for x in stride(from: 0, to: image.width, by: 2) {
                for c in 0..<3 {
                    var sum = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { sum += Int(image.pixels[((y + dy) * image.width + x + dx) * 3 + c]) }
                    out.append(UInt8((sum + 2) / 4))
                }
            }
        }
        return out
    }
}
