/// The photo formats PlantGuide reads, recognised from their first bytes (never from a file name).
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

    /// The format whose signature `bytes` start with, or `nil`.
    public static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(32))
        func matches(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if matches([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) { return .webp }
        // ISO base media file: a 'ftyp' box whose major or compatible brands name HEIF/HEVC images.
        if matches(Array("ftyp".utf8), at: 4) {
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
