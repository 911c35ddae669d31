import PlantStore

extension CollectionDatabase: CollectionStore {
    /// The database file's path.
    public var locationDescription: String { path }
}

extension CollectionDatabase: AccountStore {}

extension CollectionDatabase: PlantGuideStore {}
