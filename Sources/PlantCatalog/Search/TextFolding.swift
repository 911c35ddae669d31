import Foundation

/// Folds text for matching: lower case, accents removed, apostrophes and quotes dropped, every other
/// non-alphanumeric character a word break. `Mother-in-law's Tongue` → `mother in laws tongue`.
enum TextFolding {
    /// The folded text as UTF-8 bytes, words separated by single spaces, no leading/trailing space.
    static func fold(_ text: String) -> [UInt8] {
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

    /// The words of folded text.
    static func words(_ folded: [UInt8]) -> [[UInt8]] {
        folded.split(separator: 0x20).map(Array.init)
    }

    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2018}", "\u{2019}", "\"", "\u{201C}", "\u{201D}", "`"]
}

extension Array where Element == UInt8 {
    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        prefix.count <= count && self.withUnsafeBufferPointer { mine in
            prefix.withUnsafeBufferPointer { theirs in
                memcmp(mine.baseAddress!, theirs.baseAddress!, theirs.count) == 0
            }
        }
    }

    /// Whether `needle` occurs anywhere in this byte string.
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        let first = needle[0]
        let last = count - needle.count
        var start = 0
        while start <= last {
            if self[start] == first {
                var matched = 1
                while matched < needle.count, self[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}
