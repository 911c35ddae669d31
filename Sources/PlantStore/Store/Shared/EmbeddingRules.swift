import Foundation
import PlantGuideCore

/// What an embedding may be, the same on every backend.
package enum EmbeddingRules {
    /// Refuses an empty vector, one of more than 65,536 numbers, or one with a number that is not finite.
    package static func validate(_ vector: [Float]) throws(StoreError) {
        guard !vector.isEmpty, vector.count <= 65_536, vector.allSatisfy(\.isFinite) else {
            throw .invalid("An embedding needs 1 to 65,536 finite numbers.")
        }
    }
}
