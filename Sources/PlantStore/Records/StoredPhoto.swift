import Foundation
import GRDB

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

extension StoredPhoto: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "photo"

    public init(row: Row) throws {
        sha256 = row["sha256"]
        originalSHA256 = row["originalSHA256"]
        mediaType = row["mediaType"]
        byteCount = row["byteCount"]
        width = row["width"]
        height = row["height"]
        thumbnailSHA256 = row["thumbnailSHA256"]
        createdAt = row.timestamp("createdAt")
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["sha256"] = sha256
        container["originalSHA256"] = originalSHA256
        container["mediaType"] = mediaType
        container["byteCount"] = byteCount
        container["width"] = width
        container["height"] = height
        container["thumbnailSHA256"] = thumbnailSHA256
        container["createdAt"] = createdAt
    }
}
