/// A name people use for a catalog plant that is not its accepted name: a former name (the plant moved genus) or a
/// trade name, with the reference for the move. One row of `synonyms.tsv`.
public struct CatalogSynonym: Sendable, Equatable {
    /// How the name relates to the accepted one.
    public enum Kind: String, Sendable, CaseIterable {
        /// A name the species had before it moved (Calathea orbifolia → Goeppertia orbifolia).
        case former
        /// A name the plant is sold under that was never its name (Calathea lancifolia for Goeppertia insignis).
        case trade
    }

    public let name: ScientificName
    /// The catalog entry's scientific name.
    public let accepted: String
    public let kind: Kind
    /// Where the move is published, in words.
    public let source: String
    public let location: CatalogLocation
}
