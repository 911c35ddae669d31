import Foundation

/// Folds text for matching: lower case, accents removed, apostrophes and quotes dropped, every other
/// non-alphanumeric character a word break. `Mother-in-law's Tongue` → `mother in laws tongue`.
enum TextFolding {
    /// The folded text as UTF-8 bytes, words separated by single spaces, no leading/trailing space.
    static func fold(_ text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return foldASCII(text) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                continue  // combining accents left over from decomposition
            default:
                break
            }
            if apostrophes.contains(scalar) { continue }
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                if pendingSpace, !out.isEmpty { out.append(0x20) }
                pendingSpace = false
                out.append(contentsOf: String(scalar).utf8)
            } else {
                pendingSpace = true
            }
        }
        return out
    }

    /// The common case, without Unicode tables: names are almost always plain ASCII.
    private static func foldASCII(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if pendingSpace, !out.isEmpty { out.append(0x20) }
                pendingSpace = false
                out.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if pendingSpace, !out.isEmpty { out.append(0x20) }
                pendingSpace = false
                out.append(byte + 32)
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                continue
            default:
                pendingSpace = true
            }
        }
        return out
    }

    /// The words of folded text.
    static func words(_ folded: [UInt8]) -> [[UInt8]] {
        folded.split(separator: 0x20).map(Array.init)
    }

    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2018}", "\u{2019}", "\"", "\u{201C}", "\u{201D}", "`"]
}

extension ArraySlice where Element == UInt8 {
    /// Whether `needle` occurs anywhere in this byte string.
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= count else { return false }
        var start = startIndex
        let last = endIndex - needle.count
        while start <= last {
            if self[start] == first, self[start..<start + needle.count].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}
