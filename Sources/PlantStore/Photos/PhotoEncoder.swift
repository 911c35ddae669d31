import Foundation

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
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] {
            return "image/webp"
        }
        if bytes.count >= 12, bytes[4..<8] == [0x66, 0x74, 0x79, 0x70] { return "image/heic" }
        return "application/octet-stream"
    }
}
