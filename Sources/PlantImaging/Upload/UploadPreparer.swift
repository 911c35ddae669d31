import PlantGuideCore
import Foundation

/// Re-encodes any supported photo as an upright JPEG for upload: long side at most `maxLongSide`
/// (never enlarged), `quality`, below `maxBytes`, and without any metadata (no GPS position leaves
/// the device). Also computes the hashes the identification cache uses.
public struct UploadPreparer: Sendable {
    public let maxLongSide: Int
    public let quality: Int
    public let maxBytes: Int
    private let decoder: ImageDecoder

    public init(maxLongSide: Int = 1280, quality: Int = 90, maxBytes: Int = 2_000_000) {
        self.init(maxLongSide: maxLongSide, quality: quality, maxBytes: maxBytes, decoder: ImageDecoder())
    }

    public init(maxLongSide: Int, quality: Int, maxBytes: Int, decoder: ImageDecoder) {
        self.maxLongSide = max(maxLongSide, 1)
        self.quality = min(max(quality, 1), 100)
        self.maxBytes = max(maxBytes, 1)
        self.decoder = decoder
    }

    public func prepare(_ data: Data) throws(ImagingError) -> PreparedUpload {
        let decoded = try decoder.decode(data, target: .longSide(maxLongSide))
        var image = fitted(decoded.image, longSide: maxLongSide)
        let hash = PerceptualHash.dHash(image)
        // Quality first, then size: a smaller JPEG at the asked quality only when lower quality is not enough.
        var quality = self.quality
        while true {
            let jpeg: [UInt8]
            switch JPEGCodec.encode(image, quality: quality) {
            case .success(let bytes): jpeg = bytes
            case .failure(let error): throw error
            }
            if jpeg.count < maxBytes {
                return PreparedUpload(
                    jpeg: Data(jpeg), width: image.width, height: image.height, originalSHA256: sha256Hex(data),
                    perceptualHash: hash, sourceFormat: decoded.format, quality: quality)
            }
            if quality > 60 {
                quality -= 10
            } else if max(image.width, image.height) > 64 {
                image = fitted(image, longSide: max(image.width, image.height) * 3 / 4)
            } else {
                throw .encodingFailed(reason: "the JPEG stays above \(maxBytes) bytes")
            }
        }
    }

    /// `image` scaled down so its long side is at most `longSide` (never up).
    func fitted(_ image: RGBImage, longSide: Int) -> RGBImage {
        let long = max(image.width, image.height)
        guard long > longSide else { return image }
        let scale = Double(longSide) / Double(long)
        let width = max(1, Int((Double(image.width) * scale).rounded()))
        let height = max(1, Int((Double(image.height) * scale).rounded()))
        let pixels = Resampler.resize(image.pixels, width: image.width, height: image.height, channels: 3, to: width, height)
        return RGBImage(unchecked: width, height, pixels)
    }
}
