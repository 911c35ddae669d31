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
