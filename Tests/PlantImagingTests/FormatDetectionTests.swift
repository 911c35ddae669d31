import Foundation
import PlantGuideCore
import PlantImaging
import Testing

@Suite struct FormatDetectionTests {
    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0], ImageFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
        ([0, 0, 0, 0x18] + Array("ftypheic\u{0}\u{0}\u{0}\u{0}mif1heic".utf8), .heic),
    ] as [([UInt8], ImageFormat)])
    func recognisesSignatures(bytes: [UInt8], format: ImageFormat) {
        #expect(ImageFormat.detect(bytes) == format)
    }

    @Test func refusesUnknownBytes() {
        #expect(ImageFormat.detect(Array("GIF89a".utf8)) == nil)
        #expect(ImageFormat.detect([UInt8]()) == nil)
    }
}
