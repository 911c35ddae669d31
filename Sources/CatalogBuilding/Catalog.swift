/// The validated catalog: what the resource is made from, exposed so tests and tools can inspect it.
public struct Catalog: Sendable {
    public let configuration: CatalogConfiguration
    /// Sorted by genus name.
    public let genera: [CatalogGenus]
    /// Sorted by scientific name.
    public let entries: [CatalogEntry]
    /// In file order.
    public let exceptions: [CatalogException]
    /// Sorted by name.
    public let synonyms: [CatalogSynonym]

    /// The distinct families of the entries.
    public var families: Set<String> { Set(entries.map(\.family)) }

    /// How many entries each category has; categories without entries are absent.
    public var countsByCategory: [CatalogCategory: Int] {
        entries.reduce(into: [:]) { counts, entry in counts[entry.category, default: 0] += 1 }
    }
}
