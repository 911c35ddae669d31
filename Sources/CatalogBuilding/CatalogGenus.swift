/// One row of `genera.tsv`: the accepted APG IV family of a genus and the category its plants get by default.
public struct CatalogGenus: Sendable, Hashable {
    public let name: String
    public let family: String
    public let category: CatalogCategory
    /// Why the genus defaults to that category, for reviewers.
    public let rule: String
    public let location: CatalogLocation
}
