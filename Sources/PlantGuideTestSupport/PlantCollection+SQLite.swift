import PlantStore
import PlantStoreSQLite

extension PlantCollection {
    /// The SQLite database behind a test collection, for reading and arranging rows directly (every test collection
    /// has one; a test on another store fails here instead of reading nothing).
    public var database: CollectionDatabase {
        get throws(StoreError) {
            guard let database = sqlite else { throw .invalid("this test collection is not kept in SQLite") }
            return database
        }
    }
}
