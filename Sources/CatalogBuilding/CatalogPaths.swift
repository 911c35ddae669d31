/// Paths of the builder's inputs and output, relative to the package root. Other tools and tests rely on this
/// layout, so it lives in one place.
public enum CatalogPaths {
    public static let configuration = "Data/catalog/catalog.json"
    public static let genera = "Data/catalog/genera.tsv"
    public static let plants = "Data/catalog/plants.tsv"
    public static let exceptions = "Data/catalog/exceptions.tsv"
    public static let grinNames = "Data/sources/grin_species_names.txt"
    public static let resource = "Sources/PlantCatalog/Resources/houseplants.json"
}
