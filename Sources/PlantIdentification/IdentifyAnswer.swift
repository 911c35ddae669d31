import Foundation
import PlantGuideCore
import PlantNetAPI

/// One identification as PlantGuide answers it in JSON. `plantguide identify --json` prints it and `POST /api/identify`
/// answers it, so a script reads the same keys from either; the OpenAPI document describes it once, as `IdentifyAnswer`.
///
/// Keys that say what happened are always written (`null` when not known): `source`, `strategy`, `model`, `uncertain`,
/// `notAPlant`, `offline`, `cached`, `remainingRequests`, `quotaLevel`, `predictions`, `suggestions`, `onDevice`,
/// `online`, `notes`, `timings` and `recheck`. Keys that only some answers have are left out when they do not apply:
/// `uncertainReason`, `photoCount`, `agreeingPhotos`, `organs`, `totalMilliseconds`, `collectionMatches`, `saved` (the
/// command line's `--save`) and `uploadId` (the server's upload, to keep with `POST /api/collection`).
public struct IdentifyAnswer: Sendable, Codable, Hashable {
    /// Where the preferred answer came from.
    public var source: IdentificationSource
    /// The strategy that produced it; `null` when not recorded (an answer kept from before it was).
    public var strategy: IdentificationStrategy?
    /// The model or API version of the preferred answer.
    public var model: String?
    /// Whether the preferred answer should not be trusted as it stands.
    public var uncertain: Bool
    /// Why the answer is uncertain and what to do next.
    public var uncertainReason: String?
    /// How many photos the answer combines.
    public var photoCount: Int?
    /// How many of those photos, identified alone, had the combined answer's best species first.
    public var agreeingPhotos: Int?
    /// Whether Pl@ntNet said "Species not found" (the photo does not look like a plant).
    public var notAPlant: Bool
    /// Whether Pl@ntNet was asked and could not be reached, so the device answered.
    public var offline: Bool
    /// Whether Pl@ntNet's answer came from the identification cache (no call made, no quota spent).
    public var cached: Bool
    /// Pl@ntNet identification requests left today, when known.
    public var remainingRequests: Int?
    /// How close the day's Pl@ntNet quota is to running out; `null` when Pl@ntNet is not set up.
    public var quotaLevel: QuotaLevel?
    /// What each photo showed, in the order sent, when the caller named organs.
    public var organs: [PlantNetOrgan]?
    /// The preferred answer's candidates, best first.
    public var predictions: [SpeciesPrediction]
    /// Catalog plants to offer when the answer is uncertain ("did you mean…"), none repeating a candidate.
    public var suggestions: [CatalogPlant]
    /// The on-device answer, when the device answered (also when it was not preferred).
    public var onDevice: SourceAnswer?
    /// Pl@ntNet's answer (or its cached copy), when it answered.
    public var online: SourceAnswer?
    /// Why a source that was tried gave no answer, for display.
    public var notes: [String]
    /// Milliseconds per stage (``PlantGuideCore/IdentificationStage`` raw values) of the whole identification.
    public var timings: [String: Double]
    /// Time from start to answer, in milliseconds.
    public var totalMilliseconds: Double?
    /// The owner's plants the photo most likely shows (on-device answers, when there is a collection).
    public var collectionMatches: [CollectionMatch]?
    /// Why the answer waits for a Pl@ntNet re-check, and which kept identification waits; `null` when it does not.
    public var recheck: Recheck?
    /// Where `plantguide identify --save` filed the answer.
    public var saved: Saved?
    /// The server's upload of these photos, to keep with `POST /api/collection`.
    public var uploadId: String?

    /// One source's own answer.
    public struct SourceAnswer: Sendable, Codable, Hashable {
        /// Where it came from.
        public var source: IdentificationSource
        /// Model or API version.
        public var model: String?
        /// Whether it should not be trusted as it stands.
        public var uncertain: Bool
        /// Its candidates, best first.
        public var predictions: [SpeciesPrediction]
        /// Milliseconds by stage of this source alone.
        public var timings: [String: Double]

        /// The source answer of an identification.
        public init(_ identification: Identification) {
            source = identification.source
            model = identification.model
            uncertain = identification.uncertain
            predictions = identification.predictions
            timings = identification.timings
        }
    }

    /// Why an answer waits for a Pl@ntNet re-check.
    public struct Recheck: Sendable, Codable, Hashable {
        /// Why the device answered in Pl@ntNet's place.
        public var reason: RecheckReason
        /// The kept identification that waits, when one was kept.
        public var identificationId: Int64?

        /// Creates a re-check note.
        public init(reason: RecheckReason, identificationId: Int64?) {
            self.reason = reason
            self.identificationId = identificationId
        }
    }

    /// Where an answer was filed.
    public struct Saved: Sendable, Codable, Hashable {
        /// The identification kept.
        public var identificationId: Int64
        /// The plant it was filed under, if any.
        public var plantId: Int64?

        /// Creates the note.
        public init(identificationId: Int64, plantId: Int64?) {
            self.identificationId = identificationId
            self.plantId = plantId
        }
    }

    /// Creates an answer from its parts; `preferred` gives the source, model, candidates, uncertainty, photo counts,
    /// collection matches and timings.
    public init(
        preferred: Identification, strategy: IdentificationStrategy?, onDevice: Identification? = nil,
        online: Identification? = nil, notAPlant: Bool = false, offline: Bool = false, remainingRequests: Int? = nil,
        quotaLevel: QuotaLevel? = nil, suggestions: [CatalogPlant] = [], notes: [String] = [],
        totalMilliseconds: Double? = nil
    ) {
        source = preferred.source
        self.strategy = strategy
        model = preferred.model
        uncertain = preferred.uncertain
        uncertainReason = preferred.uncertainReason
        photoCount = preferred.photoCount
        agreeingPhotos = preferred.agreeingPhotos
        self.notAPlant = notAPlant
        self.offline = offline
        cached = preferred.source == .cache
        self.remainingRequests = remainingRequests
        self.quotaLevel = quotaLevel
        predictions = preferred.predictions
        self.suggestions = suggestions
        self.onDevice = onDevice.map(SourceAnswer.init)
        self.online = online.map(SourceAnswer.init)
        self.notes = notes
        timings = preferred.timings
        self.totalMilliseconds = totalMilliseconds
        // The owner's plants come from the on-device answer, whichever answer is preferred.
        collectionMatches = onDevice?.collectionMatches ?? preferred.collectionMatches
    }

    /// The answer of a hybrid identification, with the quota as it stands after it (`nil` without Pl@ntNet).
    public init(_ result: HybridResult, quota: QuotaStatus?) {
        self.init(
            preferred: result.preferredWithTimings, strategy: result.strategy, onDevice: result.onDevice,
            online: result.online, notAPlant: result.notAPlant, offline: result.onlineUnreachable,
            remainingRequests: result.remainingRequests ?? quota?.remaining, quotaLevel: quota?.level,
            suggestions: result.suggestions, notes: result.notes, totalMilliseconds: result.totalMilliseconds
        )
    }

    private enum CodingKeys: String, CodingKey {
        case source, strategy, model, uncertain, uncertainReason, photoCount, agreeingPhotos, notAPlant, offline, cached
        case remainingRequests, quotaLevel, organs, predictions, suggestions, onDevice, online, notes, timings
        case totalMilliseconds, collectionMatches, recheck, saved, uploadId
    }

    /// Writes the keys that say what happened always (`null` when unknown), the others only when they apply.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(strategy, forKey: .strategy)
        try container.encode(model, forKey: .model)
        try container.encode(uncertain, forKey: .uncertain)
        try container.encodeIfPresent(uncertainReason, forKey: .uncertainReason)
        try container.encodeIfPresent(photoCount, forKey: .photoCount)
        try container.encodeIfPresent(agreeingPhotos, forKey: .agreeingPhotos)
        try container.encode(notAPlant, forKey: .notAPlant)
        try container.encode(offline, forKey: .offline)
        try container.encode(cached, forKey: .cached)
        try container.encode(remainingRequests, forKey: .remainingRequests)
        try container.encode(quotaLevel, forKey: .quotaLevel)
        try container.encodeIfPresent(organs, forKey: .organs)
        try container.encode(predictions, forKey: .predictions)
        try container.encode(suggestions, forKey: .suggestions)
        try container.encode(onDevice, forKey: .onDevice)
        try container.encode(online, forKey: .online)
        try container.encode(notes, forKey: .notes)
        try container.encode(timings, forKey: .timings)
        try container.encodeIfPresent(totalMilliseconds, forKey: .totalMilliseconds)
        try container.encodeIfPresent(collectionMatches, forKey: .collectionMatches)
        try container.encode(recheck, forKey: .recheck)
        try container.encodeIfPresent(saved, forKey: .saved)
        try container.encodeIfPresent(uploadId, forKey: .uploadId)
    }
}
