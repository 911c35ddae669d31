/// One row of `exceptions.tsv`: a binomial used although GRIN does not list it, and why.
public struct CatalogException: Sendable, Hashable {
    public let name: ScientificName
    public let reason: String
    public let location: CatalogLocation
}
