import Foundation
import PlantGuideCore

/// How a plant's species came to be confirmed: its photos are then exemplars of that species.
public struct SpeciesConfirmation: Sendable, Hashable, Codable {
    /// Who or what named the species.
    public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
        /// The owner added the plant by a name the catalog knows (or gave its species).
        case name
        /// The owner accepted an identification (created a plant from it).
        case identification
    }

    /// The confirmed scientific name.
    public var species: String
    public var source: Source
    /// When it was confirmed (`nil` before it is stored).
    public var confirmedAt: Date?

    /// Describes a confirmation.
    public init(species: String, source: Source, confirmedAt: Date? = nil) {
        self.species = species
        self.source = source
        self.confirmedAt = confirmedAt
    }
}

/// How many of the collection's photos have an embedding of a given model.
public struct EmbeddingCoverage: Sendable, Hashable, Codable {
    /// Photos attached to at least one plant.
    public var photos: Int
    /// Of those, with an embedding of the model.
    public var current: Int
    /// With an embedding of another model (or another checkpoint of it).
    public var stale: Int
    /// With no embedding at all.
    public var missing: Int

    /// Counts as a store reads them.
    package init(photos: Int, current: Int, stale: Int, missing: Int) {
        self.photos = photos
        self.current = current
        self.stale = stale
        self.missing = missing
    }
}
