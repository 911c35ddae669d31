import Foundation
import PlantCatalog

/// What the server can do, as optional capabilities. A page whose capability is `nil` says plainly that
/// the feature is not available yet and how to enable it, instead of failing or pretending.
public struct ServerDependencies: Sendable {
    /// The bundled catalog (Browse, enrichment of results).
    public var catalog: PlantCatalog?
    /// Identification from photos.
    public var identification: IdentificationCapability?
    /// The plant collection.
    public var collection: CollectionCapability?
    /// Care schedules.
    public var care: CareCapability?
    /// API key, quota, cache and model facts.
    public var settings: SettingsCapability?
    /// The clock.
    public var now: @Sendable () -> Date

    /// Creates dependencies; anything left out is shown as not available.
    public init(
        catalog: PlantCatalog? = nil, identification: IdentificationCapability? = nil,
        collection: CollectionCapability? = nil, care: CareCapability? = nil, settings: SettingsCapability? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.catalog = catalog
        self.identification = identification
        self.collection = collection
        self.care = care
        self.settings = settings
        self.now = now
    }
}
