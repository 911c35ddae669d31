import Foundation
import PlantGuideCore
import Testing

/// The one upload contract: formats by their first bytes, with their media types, and the rules every upload keeps.
@Suite struct PhotoUploadRulesTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])

    @Test func formatsKnowTheirMediaTypesAndExtensionsBothWays() {
        for format in ImageFormat.allCases {
            #expect(ImageFormat(mediaType: format.mediaType) == format)
            #expect(format.mediaType.hasPrefix("image/"))
            #expect(!format.fileExtension.isEmpty)
        }
        #expect(ImageFormat(mediaType: "image/gif") == nil)
        #expect(ImageFormat.acceptedNames == "JPEG, PNG, WebP and HEIC")
        #expect(ImageFormat.allCases.filter(\.isShownByEveryBrowser) == [.jpeg, .png, .webp])
    }

    /// HEIF brands count as the major brand or a compatible one; other ISO media files (a video, an AVIF image) are no
    /// photo, and a PNG needs its whole signature.
    @Test(arguments: [
        (Data("\u{0}\u{0}\u{0}\u{18}ftypheic\u{0}\u{0}\u{0}\u{0}".utf8), ImageFormat?.some(.heic)),
        (Data("\u{0}\u{0}\u{0}\u{1C}ftypmif1\u{0}\u{0}\u{0}\u{0}heicmiaf".utf8), .heic),
        (Data("\u{0}\u{0}\u{0}\u{1C}ftypavif\u{0}\u{0}\u{0}\u{0}mif1miaf".utf8), nil),
        (Data("\u{0}\u{0}\u{0}\u{18}ftypisom\u{0}\u{0}\u{0}\u{0}isomavc1".utf8), nil),
        (Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 0]), nil),
    ])
    func oneSnifferDecides(data: Data, expected: ImageFormat?) {
        #expect(ImageFormat.detect(data) == expected)
    }

    @Test func uploadsAreCheckedInOrderAndRefusedWithTheirName() throws {
        #expect(try PhotoUploadRules.check([("a.jpg", Self.jpeg), ("b.png", Self.png)]) == [.jpeg, .png])
        #expect(throws: PhotoUploadError.noPhoto) { try PhotoUploadRules.check([]) }
        let six = Array(repeating: (name: "a.jpg", data: Self.jpeg), count: PhotoUploadRules.maximumPhotos + 1)
        #expect(throws: PhotoUploadError.tooMany(6)) { try PhotoUploadRules.check(six) }
        #expect(throws: PhotoUploadError.empty(name: "e.jpg")) { try PhotoUploadRules.check([("a.jpg", Self.jpeg), ("e.jpg", Data())]) }
        #expect(throws: PhotoUploadError.notAPhoto(name: "notes.txt")) { try PhotoUploadRules.check(Data("hello".utf8), named: "notes.txt") }
        #expect(PhotoUploadError.notAPhoto(name: "notes.txt").description == "“notes.txt” is not a photo: JPEG, PNG, WebP and HEIC photos are read.")
        #expect(PhotoUploadError.tooMany(6).description.contains("at most 5 photos"))
    }
}
