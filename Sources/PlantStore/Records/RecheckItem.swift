import Foundation
import PlantGuideCore

/// Where an item of the re-check queue stands.
public enum RecheckState: String, Sendable, Codable, Hashable, CaseIterable {
    /// Waiting for Pl@ntNet.
    case queued
    /// Pl@ntNet answered; the answer is in the history (``RecheckItem/resultId``).
    case done
    /// Pl@ntNet refused it too often (e.g. the photos were rejected); it is not sent again.
    case failed
    /// An identification not saved to a plant waited 30 days; its photos were let go.
    case expired
}

/// One photo of a queued identification, with the organ it shows.
public struct RecheckPhoto: Sendable, Hashable, Codable {
    /// The stored photo's content address.
    public var sha256: String
    /// The organ, as Pl@ntNet names it (`leaf`, `flower`, `auto`…).
    public var organ: String

    /// Describes a queued photo.
    public init(sha256: String, organ: String) {
        self.sha256 = sha256
        self.organ = organ
    }
}

/// An identification waiting for (or done with) a Pl@ntNet re-check.
public struct RecheckItem: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// The identification to check again.
    public var identificationId: Int64
    /// The plant it is filed under, `nil` for an identification that was not saved.
    public var plantId: Int64?
    /// Why it was queued.
    public var reason: RecheckReason
    public var state: RecheckState
    public var queuedAt: Date
    /// When its photos are let go if it is still waiting (identifications not saved to a plant only).
    public var expiresAt: Date?
    /// How many times it was sent without a result being recorded.
    public var attempts: Int
    /// The last failure, for display.
    public var lastError: String?
    /// The re-check's answer in the history, once done.
    public var resultId: Int64?
    /// When it left the queue.
    public var finishedAt: Date?
    /// The photos to send, in order.
    public var photos: [RecheckPhoto]

    /// An item as a store reads it.
    package init(
        id: Int64, identificationId: Int64, plantId: Int64?, reason: RecheckReason, state: RecheckState, queuedAt: Date,
        expiresAt: Date?, attempts: Int, lastError: String?, resultId: Int64?, finishedAt: Date?, photos: [RecheckPhoto]
    ) {
        self.id = id
        self.identificationId = identificationId
        self.plantId = plantId
        self.reason = reason
        self.state = state
        self.queuedAt = queuedAt
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.lastError = lastError
        self.resultId = resultId
        self.finishedAt = finishedAt
        self.photos = photos
    }
}

/// What a re-check or a re-scoring says about a plant's species, when it differs from the plant's: "Pl@ntNet thinks
/// this is X (87 %)". Never applied by itself: the owner accepts or dismisses it.
public struct SpeciesSuggestion: Sendable, Hashable, Codable, Identifiable {
    /// What made the suggestion.
    public enum Kind: String, Sendable, Codable, Hashable {
        /// A Pl@ntNet re-check of an identification the device made.
        case recheck
        /// The on-device model, after the default model changed.
        case rescore
    }

    /// How the owner settled it.
    public enum Resolution: String, Sendable, Codable, Hashable {
        /// The plant's species was changed to the suggestion.
        case accepted
        /// The plant kept its species.
        case dismissed
        /// A newer suggestion for the same plant replaced it.
        case superseded
    }

    public var id: Int64
    public var plantId: Int64
    public var kind: Kind
    /// The identification that suggests it (the re-check's or re-scoring's answer).
    public var identificationId: Int64
    /// The identification it re-checked or re-scored.
    public var previousIdentificationId: Int64?
    /// The plant's species when the suggestion was made.
    public var currentSpecies: String?
    /// The earlier answer's best species, confidence and model.
    public var previousSpecies: String?
    public var previousConfidence: Double?
    public var previousModel: String?
    /// The new answer's best species, confidence and model (or Pl@ntNet's version).
    public var suggestedSpecies: String
    public var confidence: Double
    public var model: String?
    public var createdAt: Date
    public var resolution: Resolution?
    public var resolvedAt: Date?

    /// A suggestion as a store reads it.
    package init(
        id: Int64, plantId: Int64, kind: Kind, identificationId: Int64, previousIdentificationId: Int64?, currentSpecies: String?,
        previousSpecies: String?, previousConfidence: Double?, previousModel: String?, suggestedSpecies: String,
        confidence: Double, model: String?, createdAt: Date, resolution: Resolution?, resolvedAt: Date?
    ) {
        self.id = id
        self.plantId = plantId
        self.kind = kind
        self.identificationId = identificationId
        self.previousIdentificationId = previousIdentificationId
        self.currentSpecies = currentSpecies
        self.previousSpecies = previousSpecies
        self.previousConfidence = previousConfidence
        self.previousModel = previousModel
        self.suggestedSpecies = suggestedSpecies
        self.confidence = confidence
        self.model = model
        self.createdAt = createdAt
        self.resolution = resolution
        self.resolvedAt = resolvedAt
    }

    /// "Pl@ntNet thinks this is Monstera deliciosa (87 %)", or the re-scoring's equivalent.
    public var headline: String {
        let percent = Int((confidence * 100).rounded())
        return switch kind {
        case .recheck: "Pl@ntNet thinks this is \(suggestedSpecies) (\(percent) %)"
        case .rescore: "The new model (\(model ?? "unknown")) thinks this is \(suggestedSpecies) (\(percent) %)"
        }
    }
}
