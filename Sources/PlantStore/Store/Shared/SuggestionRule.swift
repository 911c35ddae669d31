import Foundation
import PlantGuideCore

/// When a re-check's or re-scoring's answer becomes a species suggestion, the same on every backend.
package enum SuggestionRule {
    /// What a suggestion records: the species the plant had and the answer's best prediction.
    package struct Proposal: Sendable {
        /// The plant's species (else the one chosen on, or best in, the earlier answer).
        package var currentSpecies: String?
        /// The answer's best prediction, its confidence clamped to 0…1 when stored.
        package var best: SpeciesPrediction
    }

    /// A proposal when `answer`'s best species (confident enough) differs from the plant's current one; `nil` otherwise.
    /// - Parameters:
    ///   - plantSpecies: the plant's species as stored.
    ///   - previous: the identification re-checked or re-scored.
    package static func proposal(
        answer: Identification, previous: FiledIdentification, plantSpecies: String?
    ) -> Proposal? {
        guard let best = answer.best, best.confidence >= StorePolicy.suggestionMinimumConfidence else { return nil }
        let current = plantSpecies ?? previous.chosenSpecies ?? previous.identification.best?.scientificName
        if let current, sameSpecies(current, best.scientificName) { return nil }
        return Proposal(currentSpecies: current, best: best)
    }

    /// Whether two scientific names are the same species (authorship and case aside).
    package static func sameSpecies(_ first: String, _ second: String) -> Bool {
        ScientificName(parsing: first).binomial.lowercased() == ScientificName(parsing: second).binomial.lowercased()
    }

    /// The plant as accepting `suggestion` leaves it: the species taken (`species` when given, else the suggested one),
    /// the name changed too when it was the old species, and `updatedAt` moved to `now` (never before `createdAt`).
    package static func accepting(_ suggestion: SpeciesSuggestion, species: String?, plant: Plant, now: Date) -> Plant {
        var plant = plant
        let newSpecies = species.nonEmpty ?? suggestion.suggestedSpecies
        if plant.name == plant.species || suggestion.currentSpecies.map({ plant.name == $0 }) == true { plant.name = newSpecies }
        plant.species = newSpecies
        plant.updatedAt = max(now, plant.createdAt)
        return plant
    }

    /// A confidence as the suggestion columns hold it (0…1).
    package static func clamped(_ confidence: Double) -> Double { min(max(confidence, 0), 1) }
}
