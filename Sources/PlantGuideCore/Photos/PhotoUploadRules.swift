import Foundation

/// The rules every photo upload keeps, wherever it arrives (the web's Identify and plant pages, the JSON API, the
/// command line): one to ``maximumPhotos`` photos, each with content, each one of the ``ImageFormat``s by its bytes.
public enum PhotoUploadRules {
    /// At most this many photos of one plant at a time: Pl@ntNet's limit for one identification.
    public static let maximumPhotos = 5

    /// The formats of `photos` (named as the person knows them: a file name), in order.
    /// - Throws: ``PhotoUploadError`` for no photo, too many, an empty file or one that is no photo.
    public static func check(_ photos: [(name: String, data: Data)]) throws(PhotoUploadError) -> [ImageFormat] {
        guard !photos.isEmpty else { throw .noPhoto }
        guard photos.count <= maximumPhotos else { throw .tooMany(photos.count) }
        return try photos.map { photo throws(PhotoUploadError) in try check(photo.data, named: photo.name) }
    }

    /// The format of one photo.
    /// - Throws: ``PhotoUploadError/empty(name:)`` or ``PhotoUploadError/notAPhoto(name:)``.
    public static func check(_ data: Data, named name: String) throws(PhotoUploadError) -> ImageFormat {
        guard !data.isEmpty else { throw .empty(name: name) }
        guard let format = ImageFormat.detect(data) else { throw .notAPhoto(name: name) }
        return format
    }
}

/// Why photos were refused before anything was done with them.
public enum PhotoUploadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No photo was sent.
    case noPhoto
    /// More than ``PhotoUploadRules/maximumPhotos`` photos were sent (how many).
    case tooMany(Int)
    /// A file has no bytes.
    case empty(name: String)
    /// A file is none of the photo formats PlantGuide reads.
    case notAPhoto(name: String)

    /// The sentence for the person who sent the photos.
    public var description: String {
        switch self {
        case .noPhoto: "Choose a photo of the plant first."
        case .tooMany(let count):
            "Send at most \(PhotoUploadRules.maximumPhotos) photos of one plant at a time (\(count) were sent)."
        case .empty(let name): "“\(name)” is empty: choose the photo again."
        case .notAPhoto(let name): "“\(name)” is not a photo: \(ImageFormat.acceptedNames) photos are read."
        }
    }
}
