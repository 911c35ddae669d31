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
