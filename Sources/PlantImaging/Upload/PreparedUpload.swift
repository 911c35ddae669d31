import Foundation
import PlantGuideCore

/// A photo made ready for the online identification service, with the hashes the cache keys on.
public struct PreparedUpload: Sendable {
    /// Baseline JPEG with no EXIF, GPS, XMP or ICC data.
    public let jpeg: Data
    public let width: Int
    public let height: Int
    /// SHA-256 of the original file's bytes, lowercase hex.
    public let originalSHA256: String
    /// dHash of the upright image (see ``PerceptualHash``).
    public let perceptualHash: UInt64
    /// The format of the original file.
    public let sourceFormat: ImageFormat
    /// The JPEG quality finally used (lower than asked only when needed to stay under the byte limit).
    public let quality: Int

    public init(jpeg: Data, width: Int, height: Int, originalSHA256: String, perceptualHash: UInt64,
                sourceFormat: ImageFormat, quality: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
        self.originalSHA256 = originalSHA256
        self.perceptualHash = perceptualHash
        self.sourceFormat = sourceFormat
        self.quality = quality
    }
}
