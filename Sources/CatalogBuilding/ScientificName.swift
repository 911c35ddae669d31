/// A parsed catalog name: `Genus species`, `Genus × hybrid`, `Genus species var. name`,
/// any of those followed by `'Cultivar'`, or `Genus 'Cultivar'` for a hybrid of unclear parentage.
public struct ScientificName: Sendable, Hashable {
    public let genus: String
    /// The species epithet, without the hybrid sign; `nil` for `Genus 'Cultivar'`.
    public let epithet: String?
    public let isHybrid: Bool
    /// Rank and name below species, e.g. `subsp. woodii`.
    public let infraspecific: String?
    /// The cultivar name without quotes.
    public let cultivar: String?

    /// The name as written in the catalog, with a multiplication sign for hybrids and straight quotes.
    public var text: String {
        var parts = [genus]
        if let binomialTail { parts.append(binomialTail) }
        if let infraspecific { parts.append(infraspecific) }
        if let cultivar { parts.append("'\(cultivar)'") }
        return parts.joined(separator: " ")
    }

    /// `Genus epithet` (or `Genus × epithet`): the part checked against GRIN.
    public var binomial: String? {
        binomialTail.map { "\(genus) \($0)" }
    }

    /// Key for GRIN look-ups: GRIN writes the hybrid sign as a plain `x`.
    var grinKey: String? {
        epithet.map { isHybrid ? "\(genus) x \($0)" : "\(genus) \($0)" }
    }

    /// Key for duplicate detection: case, quote style and hybrid-sign spelling do not make a new plant.
    var identityKey: String {
        var parts = [genus.lowercased()]
        if let grinKey { parts = [grinKey.lowercased()] }
        if let infraspecific { parts.append(infraspecific.lowercased()) }
        if let cultivar { parts.append("'\(cultivar.lowercased())'") }
        return parts.joined(separator: " ")
    }

    private var binomialTail: String? {
        epithet.map { isHybrid ? "× \($0)" : $0 }
    }

    private static let ranks: Set<String> = ["subsp.", "var.", "f."]
    private static let quotes: Set<Character> = ["'", "\u{2018}", "\u{2019}"]

    /// Parses `text`; returns a reason on failure so the caller can report it with a file and line.
    public static func parse(_ text: String) -> Result<ScientificName, NameError> {
        var cultivar: String?
        var head = Substring(text)
        if let open = text.firstIndex(where: { quotes.contains($0) }) {
            // The cultivar runs from the first quote to the closing quote at the very end, so an apostrophe
            // inside it ('Crosby's Prolific') is part of the name.
            guard let close = text.indices.last, close > open, quotes.contains(text[close]) else {
                return .failure(NameError("a cultivar must be one quoted name at the end"))
            }
            let name = text[text.index(after: open)..<close].trimmingSpaces
            guard !name.isEmpty else { return .failure(NameError("empty cultivar name")) }
            cultivar = String(name.map { quotes.contains($0) ? "'" : $0 })
            head = text[..<open]
        }
        var words = head.split(separator: " ").map(String.init)
        guard let genus = words.first, genus.isGenusWord else {
            return .failure(NameError("a name must start with a capitalised genus"))
        }
        words.removeFirst()
        if words.isEmpty {
            guard cultivar != nil else { return .failure(NameError("a genus alone is not an entry")) }
            return .success(ScientificName(genus: genus, epithet: nil, isHybrid: false, infraspecific: nil,
                                           cultivar: cultivar))
        }
        var isHybrid = false
        if words.first == "×" || words.first == "x" {
            isHybrid = true
            words.removeFirst()
        }
        guard let epithet = words.first, epithet.isEpithetWord else {
            return .failure(NameError("expected a lower-case epithet after the genus"))
        }
        words.removeFirst()
        var infraspecific: String?
        if !words.isEmpty {
            guard words.count == 2, ranks.contains(words[0]), words[1].isEpithetWord else {
                return .failure(NameError("below species only 'subsp.', 'var.' or 'f.' and one epithet are allowed"))
            }
            infraspecific = words.joined(separator: " ")
        }
        return .success(ScientificName(genus: genus, epithet: epithet, isHybrid: isHybrid,
                                       infraspecific: infraspecific, cultivar: cultivar))
    }

    /// Why a name could not be parsed.
    public struct NameError: Error, Sendable {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

extension ScientificName: Comparable {
    /// Alphabetical by the written name, ignoring case; the exact text breaks ties so the order is total.
    public static func < (lhs: ScientificName, rhs: ScientificName) -> Bool {
        let left = lhs.text.lowercased(), right = rhs.text.lowercased()
        return left != right ? left < right : lhs.text < rhs.text
    }
}

extension StringProtocol {
    var trimmingSpaces: SubSequence {
        guard let start = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else {
            return self[endIndex..<endIndex]
        }
        return self[start...last]
    }

    var isGenusWord: Bool {
        guard let first, first.isUppercase, first.isASCII else { return false }
        return dropFirst().allSatisfy { $0.isASCII && $0.isLowercase }
    }

    var isEpithetWord: Bool {
        guard let first, first.isLowercase else { return false }
        return allSatisfy { ($0.isASCII && $0.isLowercase) || $0 == "-" }
    }
}
