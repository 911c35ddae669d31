import Foundation
import PlantGuideCore

extension SpeciesConfirmation {
    /// The species a confirmation stores: `species` trimmed, refused when empty or longer than a plant's name may be.
    /// Both backends store confirmations through it.
    package static func storedSpecies(_ species: String) throws(StoreError) -> String {
        let species = species.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !species.isEmpty else { throw StoreError.invalid("A confirmed species needs a name.") }
        guard !InputLimits.exceeds(species, characters: InputLimits.plantNameCharacters) else {
            throw StoreError.invalid(InputLimits.tooLong("species", characters: InputLimits.plantNameCharacters))
        }
        return species
    }
}

/// What an embedding may be, the same on every backend.
package enum EmbeddingRules {
    /// Refuses an empty vector, one of more than 65,536 numbers, or one with a number that is not finite.
    package static func validate(_ vector: [Float]) throws(StoreError) {
        guard !vector.isEmpty, vector.count <= 65_536, vector.allSatisfy(\.isFinite) else {
            throw .invalid("An embedding needs 1 to 65,536 finite numbers.")
        }
    }
}
