/// A place in a data file, for error messages a curator can act on.
public struct CatalogLocation: Sendable, Hashable, CustomStringConvertible {
    /// Path relative to the sources directory, e.g. `Data/catalog/plants.tsv`.
    public let file: String
    /// 1-based line number; `nil` when the problem concerns the whole file.
    public let line: Int?

    public init(file: String, line: Int? = nil) {
        self.file = file
        self.line = line
    }

    public var description: String {
        line.map { "\(file):\($0)" } ?? file
    }
}
