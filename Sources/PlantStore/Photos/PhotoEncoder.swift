import Foundation
import PlantGuideCore

/// What an encoder made of a photo: the file to keep and, optionally, a thumbnail.
public struct EncodedPhoto: Sendable {
    /// The file to store, metadata stripped (e.g. a re-encoded JPEG).
    public var data: Data
    /// MIME type of `data`, e.g. `image/jpeg`.
    public var mediaType: String
    /// Pixel size of `data`, when known.
    public var width: Int?
    public var height: Int?
    /// A small JPEG for lists, when one was made.
    public var thumbnail: Data?

    /// Describes an encoded photo.
    public init(data: Data, mediaType: String, width: Int? = nil, height: Int? = nil, thumbnail: Data? = nil) {
        self.data = data
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
    }
}

/// Turns a photo as given (any supported format, with EXIF/GPS metadata) into the file the
/// collection keeps. Injected, so the store does not depend on the image pipeline; the command line
/// passes the live one built on PlantImaging.
public struct PhotoEncoder: Sendable {
    /// Re-encodes `original`; throws if it is not a readable image.
    public var encode: @Sendable (_ original: Data) throws -> EncodedPhoto

    /// An encoder from its implementation.
    public init(encode: @escaping @Sendable (_ original: Data) throws -> EncodedPhoto) {
        self.encode = encode
    }

    /// Keeps the bytes as they are, with no thumbnail; the media type is read from the magic bytes.
    /// For tests and for builds without the image pipeline. It strips no metadata.
    public static let storingOriginal = PhotoEncoder { data in
        EncodedPhoto(data: data, mediaType: mediaType(of: data))
    }

    /// The MIME type that a file's first bytes announce (`application/octet-stream` if none).
    public static func mediaType(of data: Data) -> String {
        ImageFormat.detect(data)?.mediaType ?? "application/octet-stream"
    }
}
