import Foundation

/// What can go wrong with the bundled catalog.
public enum CatalogError: Error, Sendable, Equatable {
    /// The catalog file was not found next to the program (a broken installation).
    case resourceMissing(searched: [String])
    /// The catalog file exists but is not a valid catalog.
    case resourceUnreadable(path: String, reason: String)
    /// The search query has more characters than ``PlantGuideCore/InputLimits/queryCharacters``.
    case queryTooLong(limit: Int)
    /// The search query has more words than ``PlantGuideCore/InputLimits/queryWords``.
    case queryHasTooManyWords(limit: Int)
}

extension CatalogError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .resourceMissing(let searched):
            "The plant catalog is missing from this installation (looked in: \(searched.joined(separator: ", "))). "
                + "Reinstall PlantGuide, or set PLANTGUIDE_CATALOG to the path of houseplants.json."
        case .resourceUnreadable(let path, let reason):
            "The plant catalog at \(path) cannot be read: \(reason)"
        case .queryTooLong(let limit):
            "The search is longer than \(limit) characters. Search for a shorter name."
        case .queryHasTooManyWords(let limit):
            "The search has more than \(limit) words. Search for a shorter name."
        }
    }

    public var errorDescription: String? { description }
}
