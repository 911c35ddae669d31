import Foundation
import PlantGuideCore
import PlantStore

extension PlantCollection {
    /// The SQLite database when the collection is kept in one, for SQLite's own operations (integrity check, backup).
    public var sqlite: CollectionDatabase? { store as? CollectionDatabase }

    /// Opens the collection in a data directory with its records in the directory's SQLite database.
    public static func open(
        in directory: DataDirectory, encoder: PhotoEncoder, lookup: @escaping @Sendable (String) -> CatalogPlant?,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(StoreError) -> PlantCollection {
        try open(in: directory, store: try CollectionDatabase.open(in: directory), encoder: encoder, lookup: lookup, now: now)
    }
}
