import Foundation
import PlantGuideCore

/// The care guide's advice for a kind of plant, and the hemisphere whose seasons it is planned in.
public struct CareAdviceCapability: Sendable {
    /// Where this server's plants live (`PLANTGUIDE_HEMISPHERE`): it decides which months are the rest season.
    public var hemisphere: Hemisphere
    /// The care profile for a catalog plant: its genus' advice, else its category's.
    public var profile: @Sendable (CatalogPlant) -> CareProfile

    /// Creates the capability.
    public init(hemisphere: Hemisphere, profile: @escaping @Sendable (CatalogPlant) -> CareProfile) {
        self.hemisphere = hemisphere
        self.profile = profile
    }
}
