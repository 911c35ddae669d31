/// One row of `genera.tsv`: the accepted APG IV family of a genus and the category its plants get by default.
public struct CatalogGenus: Sendable, Hashable {
    public let name: String
    public let family: String
    public let category: CatalogCategory
    /// Why the genus defaults to that category, for reviewers.
    public let rule: String
    public let location: CatalogLocation
}

/// One plant of the catalog, with its genus data resolved.
public struct CatalogEntry: Sendable, Hashable {
    public let name: ScientificName
    public let commonNames: [String]
    public let family: String
    public let category: CatalogCategory
    /// `true` when `plants.tsv` sets a category instead of taking the genus default.
    public let overridesGenusCategory: Bool
    public let location: CatalogLocation

    public var scientificName: String { name.text }
}

/// One row of `exceptions.tsv`: a binomial used although GRIN does not list it, and why.
public struct CatalogException: Sendable, Hashable {
    public let name: ScientificName
    public let reason: String
    public let location: CatalogLocation
}

/// Where the catalog's facts come from, as recorded in `catalog.json` and copied into the resource.
public struct CatalogSource: Sendable, Hashable, Codable {
    public let name: String
    public let url: String
    public let licence: String
    public let use: String
}

/// The builder configuration in `catalog.json`.
public struct CatalogConfiguration: Sendable, Hashable, Codable {
    /// The date the curation was fixed (`YYYY-MM-DD`); not the build time, so builds are reproducible.
    public let sourceDate: String
    public let sources: [CatalogSource]

    enum CodingKeys: String, CodingKey {
        case sourceDate = "source_date"
        case sources
    }
}

/// The validated catalog: what the resource is made from, exposed so tests and tools can inspect it.
public struct Catalog: Sendable {
    public let configuration: CatalogConfiguration
    /// Sorted by genus name.
    public let genera: [CatalogGenus]
    /// Sorted by scientific name.
    public let entries: [CatalogEntry]
    /// In file order.
    public let exceptions: [CatalogException]

    /// The distinct families of the entries.
    public var families: Set<String> { Set(entries.map(\.family)) }

    /// How many entries each category has; categories without entries are absent.
    public var countsByCategory: [CatalogCategory: Int] {
        entries.reduce(into: [:]) { counts, entry in counts[entry.category, default: 0] += 1 }
    }
}
