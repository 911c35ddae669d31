import Foundation
import PlantGuideCore
import PlantStore

/// Care advice from PlantGuide's bundled care guide, the same table the collection plans care with.
enum LiveCareAdvice {
    /// The advice, or `nil` (and a log line) when the care guide cannot be read.
    static func make(hemisphere: Hemisphere, log: @escaping @Sendable (String) -> Void) -> CareAdviceCapability? {
        let guide: CareGuide
        do {
            guide = try CareGuide.bundled()
        } catch {
            log("care guide not loaded: \(error)")
            return nil
        }
        return CareAdviceCapability(hemisphere: hemisphere) { plant in guide.profile(for: plant, name: plant.scientificName) }
    }
}
