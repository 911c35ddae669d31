import Foundation

/// What can go wrong with the bundled catalog.
public enum CatalogError: Error, Sendable, Equatable {
    /// The catalog file was not found next to the program (a broken installation).
    case resourceMissing(searched: [String])
    /// The catalog file exists but is not a valid catalog.
    case resourceUnreadable(path: String, reason: String)
}

extension CatalogError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .resourceMissing(let searched):
            "The plant catalog is missing from this installation (looked in: \(searched.joined(separator: ", "))). "
                + "Reinstall PlantGuide, or set PLANTGUIDE_CATALOG to the path of houseplants.json."
        case .resourceUnreadable(let path, let reason):
            "The plant catalog at \(path) cannot be read: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
