import Foundation
import PlantGuideCore

/// What to queue with an identification for a later Pl@ntNet re-check: why, and the photos with their organs.
public struct RecheckRequest: Sendable {
    /// Why the identification needs checking.
    public var reason: RecheckReason
    /// The photos to send (already written by ``PhotoLibrary``), with the organ each shows.
    public var photos: [(photo: StoredPhoto, organ: String)]

    /// Describes a re-check to queue.
    public init(reason: RecheckReason, photos: [(photo: StoredPhoto, organ: String)]) {
        self.reason = reason
        self.photos = photos
    }
}

/// What recording a re-check's answer did.
public struct RecheckCompletion: Sendable, Hashable {
    /// The answer, filed in the history (``FiledIdentification/recheckOf`` points at the checked identification).
    public var result: FiledIdentification
    /// The suggestion made for the plant, when Pl@ntNet's best species differs from the plant's.
    public var suggestion: SpeciesSuggestion?
    /// Photos nothing uses any more (those of an identification that was not saved), whose files may go.
    public var releasedPhotos: [StoredPhoto]

    /// What recording an answer did, as a store reports it.
    package init(result: FiledIdentification, suggestion: SpeciesSuggestion?, releasedPhotos: [StoredPhoto]) {
        self.result = result
        self.suggestion = suggestion
        self.releasedPhotos = releasedPhotos
    }
}

/// An identification of a plant that re-scoring with another model can redo: the plant's latest on-device answer and
/// the photo it was made from.
public struct RescoreCandidate: Sendable, Hashable {
    public var plant: Plant
    public var identification: FiledIdentification
    /// The stored photo to classify again.
    public var photoSHA256: String

    /// A candidate as a store reads it.
    package init(plant: Plant, identification: FiledIdentification, photoSHA256: String) {
        self.plant = plant
        self.identification = identification
        self.photoSHA256 = photoSHA256
    }
}

/// How many items of the re-check queue are in each state, and how many suggestions wait for the owner.
public struct RecheckSummary: Sendable, Hashable, Codable {
    public var queued: Int
    public var done: Int
    public var failed: Int
    public var expired: Int
    public var openSuggestions: Int

    /// Counts as a store reads them.
    package init(queued: Int, done: Int, failed: Int, expired: Int, openSuggestions: Int) {
        self.queued = queued
        self.done = done
        self.failed = failed
        self.expired = expired
        self.openSuggestions = openSuggestions
    }
}
