/// One entry of the bundled houseplant catalog: a species or a cultivar.
public struct CatalogPlant: Sendable, Hashable, Codable {
    /// The accepted name, with the cultivar in single quotes where there is one:
    /// `Philodendron hederaceum 'Brasil'`.
    public var scientificName: String
    /// English common names, most used first; may be empty.
    public var commonNames: [String]
    /// The APG IV family, e.g. `Araceae`.
    public var family: String
    /// The catalog category.
    public var category: PlantCategory

    /// Creates an entry.
    public init(scientificName: String, commonNames: [String], family: String, category: PlantCategory) {
        self.scientificName = scientificName
        self.commonNames = commonNames
        self.family = family
        self.category = category
    }

    /// The parsed name: genus, epithet and cultivar.
    public var name: ScientificName { ScientificName(parsing: scientificName) }
}
