import Foundation
import PlantImaging
import Testing

/// The tensors must match what Pillow + numpy make of the same files (torchvision's transform).
@Suite struct ParityTests {
    static let smallSpec = ModelInputSpec(resize: 96, crop: 80, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225])

    @Test(arguments: ["photo.jpg", "photo.png", "photo.webp", "photo.heic"])
    func matchesPillow(name: String) throws {
        let expected = try Fixtures.tensor("\(name).tensor.npy")
        #expect(expected.shape == [3, 80, 80])
        let tensor = Preprocessor(spec: Self.smallSpec).tensor(from: try Fixtures.decode(name).image)
        #expect(tensor.count == 3 * 80 * 80)
        #expect(meanAbsoluteDifference(tensor, expected.values) < 0.01)
    }

    @Test func matchesPillowForThePlantNetTransform() throws {
        let expected = try Fixtures.tensor("photo-large.jpg.tensor.npy")
        #expect(expected.shape == [3, 224, 224])
        let tensor = try Preprocessor(spec: .plantNet300K).tensor(fromFile: try Fixtures.data("photo-large.jpg"))
        #expect(meanAbsoluteDifference(tensor, expected.values) < 0.01)
    }

    @Test func computesTorchvisionResizeSizes() {
        let preprocessor = Preprocessor(spec: .plantNet300K)
        #expect(preprocessor.resizedSize(width: 4032, height: 3024) == (341, 256))
        #expect(preprocessor.resizedSize(width: 3024, height: 4032) == (256, 341))
        #expect(preprocessor.resizedSize(width: 300, height: 300) == (256, 256))
    }

    @Test func normalisesAUniformImageToKnownValues() throws {
        let image = try #require(RGBImage(width: 70, height: 90, pixels: [UInt8](repeating: 128, count: 70 * 90 * 3)))
        let spec = ModelInputSpec(resize: 40, crop: 32, mean: [0.5, 0.25, 0], std: [0.5, 0.25, 1])
        let tensor = Preprocessor(spec: spec).tensor(from: image)
        #expect(tensor.count == 3 * 32 * 32)
        let value = Float(128) / 255
        #expect(abs(tensor[0] - (value - 0.5) / 0.5) < 1e-6)
        #expect(abs(tensor[32 * 32] - (value - 0.25) / 0.25) < 1e-6)
        #expect(abs(tensor[2 * 32 * 32 + 100] - value) < 1e-6)
    }

    @Test func extremeAspectRatiosCostNoMoreThanTheCrop() throws {
        // 64 × 20 000 resizes to 256 × 80 000; only the 224 × 224 crop may be computed.
        let image = try #require(RGBImage(width: 64, height: 20_000, pixels: [UInt8](repeating: 200, count: 64 * 20_000 * 3)))
        let tensor = Preprocessor(spec: .plantNet300K).tensor(from: image)
        #expect(tensor.count == 3 * 224 * 224)
        #expect(abs(tensor[0] - (Float(200) / 255 - 0.485) / 0.229) < 1e-5)
    }

    @Test func preparesTheFuzzerFoundTallJPEG() throws {
        // Found by the fuzzer: a JPEG header claiming 64 × 58 720 once took seconds and gigabytes.
        let data = try Fixtures.data("hostile/extreme-aspect.jpg")
        let decoded = try ImageDecoder().decode(data)
        #expect(decoded.originalWidth == 64 && decoded.originalHeight == 58_720)
        #expect(Preprocessor(spec: .plantNet300K).tensor(from: decoded.image).count == 3 * 224 * 224)
    }
}
