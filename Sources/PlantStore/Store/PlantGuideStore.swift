/// Everything PlantGuide keeps in its database, as each backend provides it (`CollectionDatabase` on SQLite,
/// `PostgresStore` on PostgreSQL): the collection, the accounts, the Pl@ntNet state, the server's shared state and the
/// reminders' claims, with the household operations act for by default.
///
/// Code above the store holds `any PlantGuideStore` and asks which backend it has only for what only an SQLite file
/// does (its online backup, the import of the old quota files, reads that block and so go to the work pool).
public protocol PlantGuideStore: CollectionStore, AccountStore, PlantNetStateStore, ServerStateStore, ReminderStore {
    /// The same store (sharing its connections and what it keeps in memory), acting for `scope` whenever a task sets
    /// no ``HouseholdScope/current``. With `nil` it has no default: an operation outside a task's scope throws
    /// ``StoreError/noHousehold(operation:)``, which is how the web app opens it, since every request has its own.
    func scoped(to scope: HouseholdScope?) -> Self
}
