import Foundation

/// A photo file in the data directory, named by the SHA-256 of its bytes. Stored once however many
/// plants or identifications use it.
public struct StoredPhoto: Sendable, Hashable, Codable {
    /// SHA-256 (lower-case hex) of the stored file: its content address.
    public var sha256: String
    /// SHA-256 of the file as it was given, before metadata was stripped; finds repeats quickly.
    public var originalSHA256: String
    /// MIME type of the stored file.
    public var mediaType: String
    /// Size of the stored file in bytes.
    public var byteCount: Int
    /// Pixel size, when known.
    public var width: Int?
    public var height: Int?
    /// SHA-256 of the thumbnail file, when one was made.
    public var thumbnailSHA256: String?
    /// When it was first stored.
    public var createdAt: Date

    /// Describes a stored photo.
    public init(
        sha256: String, originalSHA256: String, mediaType: String, byteCount: Int, width: Int?, height: Int?,
        thumbnailSHA256: String?, createdAt: Date
    ) {
        self.sha256 = sha256
        self.originalSHA256 = originalSHA256
        self.mediaType = mediaType
        self.byteCount = byteCount
        self.width = width
        self.height = height
        self.thumbnailSHA256 = thumbnailSHA256
        self.createdAt = createdAt
    }
}
