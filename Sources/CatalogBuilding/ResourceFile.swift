// The shape of the bundled houseplants.json resource; kept apart from the builder so the format is easy to find.

/// The top level of `houseplants.json`.
struct ResourceFile: Encodable {
    let sourceDate: String
    let totalPlants: Int
    let sources: [CatalogSource]
    let plants: [ResourcePlant]
    let synonyms: [ResourceSynonym]

    enum CodingKeys: String, CodingKey {
        case sourceDate = "source_date"
        case totalPlants = "total_plants"
        case sources, plants, synonyms
    }
}

/// A former or trade name of a plant in `houseplants.json`.
struct ResourceSynonym: Encodable {
    let name: String
    let accepted: String
    let kind: String
    let source: String

    init(_ synonym: CatalogSynonym) {
        name = synonym.name.text
        accepted = synonym.accepted
        kind = synonym.kind.rawValue
        source = synonym.source
    }
}

/// One plant in `houseplants.json`. `genus` and `cultivar` are there so search need not re-parse names.
struct ResourcePlant: Encodable {
    let scientificName: String
    let commonNames: [String]
    let family: String
    let category: String
    let genus: String
    let cultivar: String?

    init(_ entry: CatalogEntry) {
        scientificName = entry.scientificName
        commonNames = entry.commonNames
        family = entry.family
        category = entry.category.rawValue
        genus = entry.name.genus
        cultivar = entry.name.cultivar
    }

    enum CodingKeys: String, CodingKey {
        case scientificName = "scientific_name"
        case commonNames = "common_names"
        case family, category, genus, cultivar
    }
}
