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
    /// Names the plant had or is sold under (Calathea orbifolia for Goeppertia orbifolia), from the catalog's
    /// synonyms table; search and look-ups by name find the plant by them too.
    public var formerNames: [String]

    /// Creates an entry.
    public init(scientificName: String, commonNames: [String], family: String, category: PlantCategory, formerNames: [String] = []) {
        self.scientificName = scientificName
        self.commonNames = commonNames
        self.family = family
        self.category = category
        self.formerNames = formerNames
    }

    private enum CodingKeys: String, CodingKey {
        case scientificName, commonNames, family, category, formerNames
    }

    /// Reads an entry; `formerNames` may be absent (entries written before it existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scientificName = try container.decode(String.self, forKey: .scientificName)
        commonNames = try container.decode([String].self, forKey: .commonNames)
        family = try container.decode(String.self, forKey: .family)
        category = try container.decode(PlantCategory.self, forKey: .category)
        formerNames = try container.decodeIfPresent([String].self, forKey: .formerNames) ?? []
    }

    /// The parsed name: genus, epithet and cultivar.
    public var name: ScientificName { ScientificName(parsing: scientificName) }
}
