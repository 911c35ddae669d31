/// Everything that stops the catalog from being built. Each case names the file (and line where there is one)
/// so the curated data can be fixed directly.
public enum CatalogBuildError: Error, Sendable, Equatable {
    /// A required input could not be read.
    case unreadableFile(CatalogLocation, reason: String)
    /// A row or header does not have the expected shape.
    case malformedRow(CatalogLocation, reason: String)
    /// `catalog.json` is missing a field or has an invalid value.
    case invalidConfiguration(CatalogLocation, reason: String)
    /// A plant's genus has no row in `genera.tsv`.
    case unknownGenus(String, CatalogLocation)
    /// A category that is not one of the eleven.
    case unknownCategory(String, CatalogLocation)
    /// A binomial that is neither an accepted GRIN name nor listed in `exceptions.tsv`.
    case unknownBinomial(String, CatalogLocation)
    /// The same plant (or genus, or exception) appears twice, compared ignoring case, quote style and `×`/`x`.
    case duplicateEntry(String, CatalogLocation, firstSeen: CatalogLocation)
    /// An exception for a name that GRIN does list, so the exception is no longer needed.
    case staleException(String, CatalogLocation)
    /// An exception that no plant uses.
    case unusedException(String, CatalogLocation)
    /// A row in `genera.tsv` that no plant uses.
    case unusedGenus(String, CatalogLocation)
}

extension CatalogBuildError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .unreadableFile(location, reason):
            "\(location): cannot read file: \(reason)"
        case let .malformedRow(location, reason):
            "\(location): malformed row: \(reason)"
        case let .invalidConfiguration(location, reason):
            "\(location): invalid configuration: \(reason)"
        case let .unknownGenus(genus, location):
            "\(location): genus '\(genus)' has no row in \(CatalogPaths.genera)"
        case let .unknownCategory(category, location):
            "\(location): unknown category '\(category)' (expected one of: "
                + CatalogCategory.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case let .unknownBinomial(name, location):
            "\(location): '\(name)' is not an accepted GRIN name; fix the spelling or add it to "
                + "\(CatalogPaths.exceptions) with a reason"
        case let .duplicateEntry(name, location, firstSeen):
            "\(location): duplicate '\(name)' (first at \(firstSeen))"
        case let .staleException(name, location):
            "\(location): exception '\(name)' is an accepted GRIN name; remove the exception"
        case let .unusedException(name, location):
            "\(location): exception '\(name)' is not used by any plant; remove it"
        case let .unusedGenus(genus, location):
            "\(location): genus '\(genus)' is not used by any plant; remove it"
        }
    }
}
