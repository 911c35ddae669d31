import Foundation

/// The photo formats the server accepts, recognised by their first bytes, never by file name or the
/// type a browser claims.
public enum ImageKind: String, Sendable, CaseIterable {
    case jpeg, png, webp, heic

    /// The media type to serve the photo back with.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        }
    }

    /// Recognises a photo by its magic bytes; `nil` for anything else.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4),
            ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(where: { starts(Array($0.utf8), at: 8) })
        {
            self = .heic
        } else {
            return nil
        }
    }
}
