/// How a search result matched its query.
public struct CatalogMatch: Sendable, Hashable, Codable {
    /// Match tiers, best first. Results are ordered by tier, then by score.
    public enum Kind: Int, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
        /// The whole query is the scientific name or a common name.
        case exact
        /// A scientific or common name starts with the whole query.
        case prefix
        /// Every query word is a word, a word's start or part of a word of the plant's names.
        case words
        /// As `words`, but at least one query word matched only with typos.
        case fuzzy
        /// The plant is the species of a cultivar the query named but the catalog lacks.
        case related

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .exact: "exact"
            case .prefix: "prefix"
            case .words: "words"
            case .fuzzy: "fuzzy"
            case .related: "related"
            }
        }
    }

    /// The tier.
    public var kind: Kind
    /// Rank within the tier, lower is better (e.g. the number of typos for fuzzy matches).
    public var score: Int
}
