/// The photo formats PlantGuide reads, recognised from their first bytes (never from a file name or the type a browser
/// claims): the one sniffer of the decoder, the server's uploads, the photo library and Pl@ntNet's reference photos.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg
    case png
    case webp
    case heic

    /// Name for messages, e.g. "JPEG".
    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .heic: "HEIC"
        }
    }

    /// The media type to store and serve the photo with.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        }
    }

    /// The file-name extension for photos of this format.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heic: "heic"
        }
    }

    /// The format a media type names, or `nil`.
    public init?(mediaType: String) {
        guard let format = Self.allCases.first(where: { $0.mediaType == mediaType }) else { return nil }
        self = format
    }

    /// "JPEG, PNG, WebP and HEIC": the formats, for messages.
    public static let acceptedNames: String = {
        let names = allCases.map(\.displayName)
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }()

    /// Whether a browser shows photos of this format in an `<img>` (HEIC is shown by Safari only).
    public var isShownByEveryBrowser: Bool { self != .heic }

    /// The format whose signature `bytes` start with, or `nil`.
    public static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(32))
        func matches(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if matches([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) { return .webp }
        // ISO base media file: a 'ftyp' box whose major or compatible brands name HEIF/HEVC images; an AVIF file (whose
        // compatible brands name HEIF's container, mif1) is not one.
        if matches(Array("ftyp".utf8), at: 4), !matches(Array("avif".utf8), at: 8), !matches(Array("avis".utf8), at: 8) {
            let brands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
            var offset = 8
            while offset + 4 <= head.count {
                if let brand = String(bytes: head[offset..<offset + 4], encoding: .ascii), brands.contains(brand) {
                    return .heic
                }
                offset += offset == 8 ? 8 : 4  // skip minor_version after the major brand
            }
        }
        return nil
    }
}
