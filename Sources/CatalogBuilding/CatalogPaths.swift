/// Paths of the builder's inputs and output, relative to the package root. Other tools and tests rely on this
/// layout, so it lives in one place.
public enum CatalogPaths {
    public static let configuration = "Data/catalog/catalog.json"
    public static let genera = "Data/catalog/genera.tsv"
    public static let plants = "Data/catalog/plants.tsv"
    public static let exceptions = "Data/catalog/exceptions.tsv"
    public static let synonyms = "Data/catalog/synonyms.tsv"
    public static let grinNames = "Data/sources/grin_species_names.txt"
    public static let resource = "Sources/PlantCatalog/Resources/houseplants.json"

    // The species directory of the on-device model's classes.
    public static let speciesGenera = "Data/species/genera.tsv"
    public static let speciesFamilies = "Data/species/families.tsv"
    public static let itisNames = "Data/sources/itis_common_names.tsv"
    public static let usdaFamilies = "Data/sources/genus_family_usda.csv"
    public static let classSpeciesIds = "Sources/PlantClassifier/Resources/class_idx_to_species_id.json"
    public static let speciesNames = "Sources/PlantClassifier/Resources/plantnet300K_species_id_2_name.json"
    public static let speciesResource = "Sources/PlantCatalog/Resources/species-directory.json"
}
