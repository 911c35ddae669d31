/// The eleven categories a catalog entry can belong to. The raw values are the exact strings used in the
/// data files and in the bundled resource.
public enum CatalogCategory: String, CaseIterable, Sendable, Codable, Comparable {
    case airPlant = "Air Plant"
    case bromeliad = "Bromeliad"
    case cactus = "Cactus"
    case fern = "Fern"
    case floweringHouseplant = "Flowering Houseplant"
    case herb = "Herb"
    case orchid = "Orchid"
    case palm = "Palm"
    case succulent = "Succulent"
    case trailingClimbing = "Trailing/Climbing"
    case tropicalFoliage = "Tropical Foliage"

    public static func < (lhs: CatalogCategory, rhs: CatalogCategory) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
