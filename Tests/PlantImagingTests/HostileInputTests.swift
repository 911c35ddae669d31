import Foundation
import PlantGuideCore
import PlantImaging
import Testing

@Suite struct HostileInputTests {
    static let cases: [(String, ImagingError)] = [
        ("hostile/empty.jpg", .empty),
        ("hostile/random.bin", .unrecognizedFormat),
        ("hostile/truncated.jpg", .truncated(.jpeg)),
        ("hostile/truncated.png", .truncated(.png)),
        ("hostile/truncated.webp", .truncated(.webp)),
        ("hostile/truncated.heic", .truncated(.heic)),
        ("hostile/bomb.png", .tooLarge(width: 100_000, height: 100_000, maximumPixels: DecodeLimits.default.maximumPixels)),
        ("hostile/bomb.jpg", .tooLarge(width: 65_000, height: 65_000, maximumPixels: DecodeLimits.default.maximumPixels)),
        ("hostile/tiny.png", .tooSmall(width: 48, height: 40, minimumShortSide: 64)),
    ]

    @Test(arguments: cases)
    func refusesWithTheRightError(name: String, expected: ImagingError) throws {
        let data = try Fixtures.data(name)
        #expect(throws: expected) { try ImageDecoder().decode(data) }
    }

    @Test(arguments: [("random.jpg", ImageFormat.jpeg), ("random.png", .png), ("random.webp", .webp), ("random.heic", .heic)])
    func refusesRandomBytesBehindAValidSignature(name: String, format: ImageFormat) throws {
        let data = try Fixtures.data("hostile/" + name)
        do {
            _ = try ImageDecoder().decode(data)
            Issue.record("random bytes decoded as an image")
        } catch {
            switch error {
            case .corrupt(let reported, _), .truncated(let reported), .unsupported(let reported, _):
                #expect(reported == format)
            default:
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func refusesDamagedHEVCParameters() throws {
        let data = try Fixtures.data("hostile/bad-sps.heic")
        #expect {
            try ImageDecoder().decode(data)
        } throws: { error in
            guard case .corrupt(.heic, _) = error as? ImagingError else { return false }
            return true
        }
    }

    @Test func refusesFilesOverTheByteBudget() throws {
        let data = try Fixtures.data("photo.png")
        let decoder = ImageDecoder(limits: DecodeLimits(maximumBytes: 1000))
        #expect(throws: ImagingError.fileTooLarge(bytes: data.count, maximumBytes: 1000)) { try decoder.decode(data) }
    }

    @Test func everyPrefixOfAFileFailsCleanly() throws {
        // Cut each format at many points: each cut must throw (or, past the image data, decode), never crash.
        for name in ["photo.jpg", "photo.png", "photo.webp", "photo.heic"] {
            let data = try Fixtures.data(name)
            for length in stride(from: 0, to: data.count, by: max(1, data.count / 40)) {
                _ = try? ImageDecoder().decode(data.prefix(length))
            }
        }
        let whole = try ImageDecoder().decode(try Fixtures.data("photo.png"))
        #expect(whole.image.width == 160)
    }

    @Test func errorsReadAsOneLine() {
        let errors: [ImagingError] = Self.cases.map(\.1) + [.corrupt(.jpeg, reason: "bad Huffman table"), .outOfMemory]
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(error.description.count > 10)
        }
    }
}
