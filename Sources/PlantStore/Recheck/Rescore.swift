import Foundation
import PlantGuideCore

/// What re-scoring did to one plant's identification, as `plantguide recheck rescore --json` prints it.
public struct RescoreItem: Sendable, Hashable, Codable {
    public var plantId: Int64
    /// The identification re-scored, and its answer and model.
    public var identificationId: Int64
    public var previousSpecies: String?
    public var previousModel: String?
    /// The new answer, filed beside it.
    public var resultId: Int64?
    public var species: String?
    public var confidence: Double?
    /// The suggestion made when the new model's species differs from the plant's.
    public var suggestionId: Int64?
    /// Why this one could not be re-scored.
    public var error: String?
}

/// The result of re-scoring saved identifications with a new model.
public struct RescoreRun: Sendable, Hashable, Codable {
    /// The model that re-scored them.
    public var model: String
    /// Identifications re-scored.
    public var rescored = 0
    /// Re-scorings whose best species differs from the plant's: each made a suggestion.
    public var changed = 0
    /// Identifications that could not be re-scored (photo missing or unreadable).
    public var failed = 0
    public var items: [RescoreItem] = []
}

/// Re-scores each plant's latest on-device identification with another model, from its stored photo, and suggests the
/// new model's species where it differs from the plant's. Each answer is committed as it comes, so an interrupted run
/// resumes where it stopped (a plant whose latest answer is already from `model` is not redone).
public struct Rescore: Sendable {
    public var collection: PlantCollection
    /// The model's name as identifications record it (``Identification/model``).
    public var model: String
    /// Classifies one photo (its stored file's bytes) with the new model.
    public var classify: @Sendable (Data) async throws -> Identification

    /// Puts a re-scoring together.
    public init(collection: PlantCollection, model: String, classify: @escaping @Sendable (Data) async throws -> Identification) {
        self.collection = collection
        self.model = model
        self.classify = classify
    }

    /// The identifications that would be re-scored.
    public func candidates() async throws(StoreError) -> [RescoreCandidate] {
        try await collection.store.rescoreCandidates(model: model)
    }

    /// Re-scores every candidate; `progress` is called before each with (done, total).
    public func run(progress: @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws(StoreError) -> RescoreRun {
        let candidates = try await candidates()
        var run = RescoreRun(model: model)
        for (index, candidate) in candidates.enumerated() {
            progress(index, candidates.count)
            if Task.isCancelled { break }
            let previous = candidate.identification.identification
            var item = RescoreItem(
                plantId: candidate.plant.id, identificationId: candidate.identification.id,
                previousSpecies: previous.best?.scientificName, previousModel: previous.model
            )
            do {
                guard let photo = try await collection.store.photo(sha256: candidate.photoSHA256) else {
                    throw StoreError.photo("photo \(candidate.photoSHA256) is not in the collection")
                }
                let data = try Data(contentsOf: collection.photos.url(of: photo))
                var answer = try await classify(data)
                answer.model = answer.model ?? model
                let filed = try await collection.store.fileRescore(
                    answer, of: candidate.identification, photoSHA256: candidate.photoSHA256, now: collection.now()
                )
                item.resultId = filed.result.id
                item.species = answer.best?.scientificName
                item.confidence = answer.best?.confidence
                item.suggestionId = filed.suggestion?.id
                run.rescored += 1
                if filed.suggestion != nil { run.changed += 1 }
            } catch {
                item.error = "\(error)"
                run.failed += 1
            }
            run.items.append(item)
        }
        progress(candidates.count, candidates.count)
        return run
    }
}
