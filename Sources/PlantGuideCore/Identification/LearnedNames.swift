import Foundation

/// What Pl@ntNet said about one species in one answer: its common names in the answer's language, its
/// family and its GBIF and POWO ids. Kept so later answers (online or offline) can use them.
public struct LearnedSpecies: Sendable, Codable, Hashable {
    /// Genus and epithet without authorship, e.g. `Monstera deliciosa`.
    public var binomial: String
    /// Language code of ``commonNames``, e.g. `en`.
    public var language: String
    /// Common names as Pl@ntNet gave them, most used first.
    public var commonNames: [String]
    /// Family as Pl@ntNet gave it.
    public var family: String?
    /// GBIF taxon id.
    public var gbifId: String?
    /// Plants of the World Online id.
    public var powoId: String?
    /// When the answer was received.
    public var learnedAt: Date

    /// Creates a record.
    public init(
        binomial: String, language: String, commonNames: [String], family: String? = nil, gbifId: String? = nil,
        powoId: String? = nil, learnedAt: Date
    ) {
        self.binomial = binomial
        self.language = language
        self.commonNames = commonNames
        self.family = family
        self.gbifId = gbifId
        self.powoId = powoId
        self.learnedAt = learnedAt
    }

    /// The key species are stored under: genus and epithet in lower case, hybrid signs and authorship dropped
    /// (`Monstera deliciosa Liebm.`, `monstera DELICIOSA` → `monstera deliciosa`).
    public static func key(for name: String) -> String {
        let words = name.split(whereSeparator: { $0 == " " || $0 == "\t" })
            .map { $0.hasPrefix("×") ? $0.dropFirst() : $0 }
            .filter { !$0.isEmpty && $0 != "x" && $0 != "X" }
        guard let genus = words.first?.lowercased() else { return "" }
        guard words.count > 1, let first = words[1].first, first.isLetter, !words[1].hasSuffix("."), first != "'" else {
            return genus
        }
        return "\(genus) \(words[1].lowercased())"
    }
}

/// Where names learned from Pl@ntNet are kept (the collection's store), reached asynchronously: the store may be a
/// database server. Answers are enriched with one lookup for all their candidates.
public struct LearnedNames: Sendable {
    /// Stores what one answer taught, replacing earlier names of the same species and language.
    public var record: @Sendable (_ species: [LearnedSpecies]) async throws -> Void
    /// Everything learned about each of these species (any spelling with or without authorship), newest first, by the
    /// name asked with; a name nothing was learned about is left out.
    public var lookup: @Sendable (_ names: [String]) async throws -> [String: [LearnedSpecies]]

    /// Creates the store from its implementation.
    public init(
        record: @escaping @Sendable (_ species: [LearnedSpecies]) async throws -> Void,
        lookup: @escaping @Sendable (_ names: [String]) async throws -> [String: [LearnedSpecies]]
    ) {
        self.record = record
        self.lookup = lookup
    }
}
