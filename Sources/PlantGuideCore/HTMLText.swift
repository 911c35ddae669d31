import Foundation

/// Escaping for text put into HTML (element content and quoted attribute values): `& < > " '`. The web app's pages and
/// the reminder emails both use it.
public enum HTMLText {
    /// `text` with `& < > " '` replaced by their character references. Works on the UTF-8 bytes (the five characters
    /// are ASCII, so no multi-byte character can contain them) and returns text without any of them as it is: pages
    /// escape every name they show.
    public static func escape(_ text: String) -> String {
        var needsEscaping = false
        for byte in text.utf8 where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            needsEscaping = true
            break
        }
        guard needsEscaping else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: ">"): out += "&gt;".utf8
            case UInt8(ascii: "\""): out += "&quot;".utf8
            case UInt8(ascii: "'"): out += "&#39;".utf8
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
