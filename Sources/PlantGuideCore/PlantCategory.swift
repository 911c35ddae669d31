/// The eleven categories every catalog plant belongs to exactly one of.
public enum PlantCategory: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
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

    /// Parses a category the way a person types it: case-insensitive, ignoring spaces, hyphens,
    /// underscores and slashes, so `tropical-foliage`, `Trailing Climbing` and `cactus` all work.
    public init?(userInput: String) {
        let key = Self.key(userInput)
        guard let match = Self.allCases.first(where: { Self.key($0.rawValue) == key }) else { return nil }
        self = match
    }

    /// The form accepted on the command line, e.g. `tropical-foliage`.
    public var argumentName: String {
        rawValue.lowercased().replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: " ", with: "-")
    }

    public static func < (lhs: PlantCategory, rhs: PlantCategory) -> Bool { lhs.rawValue < rhs.rawValue }

    private static func key(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { !" -_/".unicodeScalars.contains($0) })
    }
}
