import PlantGuideCore

/// A name people use for a catalog plant that is not its accepted name, from the catalog's synonyms table
/// (`Data/catalog/synonyms.tsv`): "Calathea orbifolia" for Goeppertia orbifolia.
public struct PlantSynonym: Sendable, Hashable, Codable {
    /// How the name relates to the accepted one.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A name the species had before it moved genus.
        case former
        /// A name the plant is sold under that was never its name.
        case trade
    }

    /// The name people type, e.g. `Calathea orbifolia`.
    public var name: String
    /// The catalog entry's scientific name, e.g. `Goeppertia orbifolia`.
    public var accepted: String
    public var kind: Kind
    /// Where the move is published, in words.
    public var source: String

    public init(name: String, accepted: String, kind: Kind, source: String) {
        self.name = name
        self.accepted = accepted
        self.kind = kind
        self.source = source
    }

    /// "Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea)" (a trade name: "is sold as …; its name
    /// is …"), for the messages of the commands and pages that resolved it.
    public func notice(for plant: CatalogPlant) -> String {
        let common = plant.commonNames.first.map { " (\($0))" } ?? ""
        switch kind {
        case .former: return "\(name) is now \(plant.scientificName)\(common)."
        case .trade: return "\(name) is a trade name of \(plant.scientificName)\(common)."
        }
    }
}
