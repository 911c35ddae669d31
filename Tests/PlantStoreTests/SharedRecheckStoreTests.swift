import Foundation
import PlantGuideCore
import PlantStore
import Testing

extension TestStore {
    /// The identification history, the re-check queue, re-scoring and suggestions.
    var history: any HistoryStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// The re-check queue, re-scoring and species suggestions through the store protocol, on every backend, with two
/// connections standing for two replicas draining one queue.
@Suite struct SharedRecheckStoreTests {
    private static let start = isoDate("2026-06-01T10:00:00Z")
    private static func time(days: Double = 0, seconds: Double = 0) -> Date { start.addingTimeInterval(days * 86_400 + seconds) }

    private static func photo(_ number: Int) -> StoredPhoto {
        let sha = String(format: "%064x", number)
        return StoredPhoto(
            sha256: sha, originalSHA256: sha, mediaType: "image/jpeg", byteCount: 1000 + number, width: 10, height: 10,
            thumbnailSHA256: nil, createdAt: start
        )
    }

    private static func deviceAnswer(_ species: String, _ confidence: Double, model: String = "resnet18-test", at date: Date)
        -> Identification {
        Identification(
            source: .onDevice, model: model, predictions: [SpeciesPrediction(rank: 1, scientificName: species, confidence: confidence)],
            uncertain: confidence < 0.7, date: date
        )
    }

    private static func plantNetAnswer(_ species: String, _ confidence: Double, at date: Date) -> Identification {
        Identification(
            source: .plantNetAPI, model: "2026-01 (7.3)",
            predictions: [SpeciesPrediction(rank: 1, scientificName: species, confidence: confidence)], uncertain: false, date: date
        )
    }

    /// Files a device answer queued for a re-check with `photos` (the first also the identification's photo when saved),
    /// under a new plant named after `plant` when given.
    @discardableResult
    private static func queue(
        _ store: any HistoryStore, _ answer: Identification, photos: [Int], plant: String? = nil, reason: RecheckReason = .offline,
        at date: Date
    ) async throws -> FiledIdentification {
        let stored = photos.map(photo)
        return try await store.fileIdentification(
            answer, photo: plant == nil ? nil : stored[0], plantId: nil,
            newPlant: plant.map { (NewPlant(name: $0, species: $0), CareProfile.fixture()) }, chosenSpecies: plant,
            recheck: RecheckRequest(reason: reason, photos: stored.enumerated().map { ($0.element, $0.offset == 0 ? "leaf" : "flower") }),
            now: date
        )
    }

    /// The `host:pid` of a process that has exited.
    private static func deadProcessIdentity() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return "\(ProcessInfo.processInfo.hostName):\(process.processIdentifier)"
    }

    @Test(arguments: StateBackend.allCases)
    func theQueueGoesSavedPlantsFirstThenOldestFirstWithItsPhotos(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let writer = stores[0].history, reader = stores[1].history
            let unsaved = try await Self.queue(writer, Self.deviceAnswer("Ficus benjamina", 0.3, at: Self.time()), photos: [1, 2], at: Self.time())
            let saved = try await Self.queue(
                writer, Self.deviceAnswer("Ficus lyrata", 0.4, at: Self.time(days: 1)), photos: [3], plant: "Ficus lyrata",
                reason: .uncertain, at: Self.time(days: 1)
            )
            let newer = try await Self.queue(
                reader, Self.deviceAnswer("Pilea peperomioides", 0.5, at: Self.time(days: 2)), photos: [4], plant: "Pilea peperomioides",
                reason: .quota, at: Self.time(days: 2)
            )
            let now = Self.time(days: 3)
            let queued = try await reader.queuedRechecks(now: now, limit: nil)
            #expect(queued.map(\.identificationId) == [saved.id, newer.id, unsaved.id])
            let last = try #require(queued.last)
            #expect(last.plantId == nil && last.reason == .offline && last.state == .queued && last.attempts == 0)
            #expect(last.photos == [RecheckPhoto(sha256: Self.photo(1).sha256, organ: "leaf"),
                                    RecheckPhoto(sha256: Self.photo(2).sha256, organ: "flower")])
            #expect(last.queuedAt == Self.time() && last.expiresAt == Self.time(days: 30))
            #expect(queued.first?.expiresAt == nil && queued.first?.plantId == saved.plantId && queued.first?.reason == .uncertain)
            #expect(try await reader.queuedRechecks(now: now, limit: 1).map(\.identificationId) == [saved.id])
            #expect(try await reader.queuedRechecks(now: now, limit: 0).isEmpty)
            #expect(try await writer.queuedRecheckCount(now: now) == 3)
            // Past the unsaved one's expiry it is no longer sent.
            #expect(try await writer.queuedRecheckCount(now: Self.time(days: 30)) == 2)
            #expect(try await writer.queuedRechecks(now: Self.time(days: 30), limit: nil).map(\.identificationId) == [saved.id, newer.id])

            #expect(try await reader.rechecks(limit: nil).map(\.identificationId) == [newer.id, saved.id, unsaved.id])
            #expect(try await reader.rechecks(limit: 2).map(\.identificationId) == [newer.id, saved.id])
            #expect(try await reader.recheck(ofIdentification: unsaved.id) == last)
            #expect(try await reader.recheck(ofIdentification: 999) == nil)
            let some = try await reader.rechecks(ofIdentifications: [unsaved.id, newer.id, 999])
            #expect(Set(some.keys) == [unsaved.id, newer.id])
            #expect(some[newer.id]?.photos.map(\.organ) == ["leaf"])
            #expect(try await reader.rechecks(ofIdentifications: []).isEmpty)
            #expect(try await reader.recheckSummary() == RecheckSummary(queued: 3, done: 0, failed: 0, expired: 0, openSuggestions: 0))
        }
    }

    /// 20 claimers on two connections race for 30 items: every item is claimed exactly once within its lease.
    @Test(arguments: StateBackend.allCases)
    func concurrentClaimersClaimEachItemOnce(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            for number in 1...30 {
                try await Self.queue(
                    stores[number % 2].history, Self.deviceAnswer("Ficus benjamina", 0.3, at: Self.time(seconds: Double(number))),
                    photos: [number], at: Self.time(seconds: Double(number))
                )
            }
            let now = Self.time(days: 1)
            let ids = try await stores[0].history.queuedRechecks(now: now, limit: nil).map(\.id)
            #expect(ids.count == 30)
            let histories = stores.map(\.history)
            // Claimants on other hosts count as alive, on both backends, so none takes another's claim over.
            let claims = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for claimer in 0..<20 {
                    let store = histories[claimer % 2]
                    group.addTask {
                        var won: [Int64] = []
                        for id in ids.shuffled() where try await store.claimRecheck(
                            id, now: now, lease: 300, claimant: "claimer-\(claimer).test:1"
                        ) {
                            won.append(id)
                        }
                        return won
                    }
                }
                var all: [Int64] = []
                for try await won in group { all += won }
                return all
            }
            #expect(claims.count == 30)
            #expect(Set(claims) == Set(ids))
            #expect(try await stores[1].history.rechecks(limit: nil).allSatisfy { $0.attempts == 1 })
            // Within the lease nobody else gets one; its holder may claim it again; after the lease anyone may.
            let first = try #require(ids.first)
            #expect(try await !histories[0].claimRecheck(first, now: now.addingTimeInterval(299), lease: 300, claimant: "late.test:1"))
            #expect(try await histories[1].claimRecheck(first, now: now.addingTimeInterval(301), lease: 300, claimant: "late.test:1"))
            #expect(try await histories[0].recheck(ofIdentification: 1)?.attempts == 2)
            // Releasing gives it back without counting the attempt.
            try await histories[0].releaseRecheck(first)
            #expect(try await histories[1].recheck(ofIdentification: 1)?.attempts == 1)
            #expect(try await histories[1].claimRecheck(first, now: now.addingTimeInterval(302), lease: 300, claimant: "other.test:1"))
            #expect(try await !histories[1].claimRecheck(999, now: now, lease: 300, claimant: "other.test:1"))
            // A claim of a process on this host that no longer runs is taken over at once, by one claimant only.
            let orphan = ids[1]
            try await histories[0].releaseRecheck(orphan)
            #expect(try await histories[0].claimRecheck(orphan, now: now, lease: 300, claimant: try Self.deadProcessIdentity()))
            #expect(try await histories[1].claimRecheck(orphan, now: now, lease: 300, claimant: "taker.test:1"))
            #expect(try await !histories[0].claimRecheck(orphan, now: now, lease: 300, claimant: "third.test:1"))
        }
    }

    @Test(arguments: StateBackend.allCases)
    func anAnswerIsFiledOnceSuggestsADifferentSpeciesAndLetsUnsavedPhotosGo(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let first = stores[0].history, second = stores[1].history
            let saved = try await Self.queue(
                first, Self.deviceAnswer("Eranthemum pulchellum", 0.09, at: Self.time()), photos: [1], plant: "Eranthemum pulchellum",
                at: Self.time()
            )
            let unsaved = try await Self.queue(first, Self.deviceAnswer("Ficus benjamina", 0.2, at: Self.time()), photos: [7, 8], at: Self.time())
            let agreeing = try await Self.queue(
                first, Self.deviceAnswer("Ficus lyrata", 0.5, at: Self.time()), photos: [9], plant: "Ficus lyrata", at: Self.time()
            )
            let plantId = try #require(saved.plantId)
            let savedItem = try #require(try await second.recheck(ofIdentification: saved.id))
            let now = Self.time(days: 1)

            // Two replicas record the same answer at once: it is filed once.
            let answer = Self.plantNetAnswer("Monstera deliciosa", 0.87, at: now)
            async let one = first.completeRecheck(savedItem.id, answer: answer, now: now)
            async let two = second.completeRecheck(savedItem.id, answer: answer, now: now)
            let outcomes = try await [one, two]
            #expect(outcomes.compactMap { $0 }.count == 1)
            let completion = try #require(outcomes.compactMap { $0 }.first)
            #expect(completion.result.plantId == plantId && completion.result.recheckOf == saved.id)
            #expect(completion.result.photoSHA256 == Self.photo(1).sha256)  // the plant keeps the photo
            #expect(completion.releasedPhotos.isEmpty)
            #expect(completion.result.identification == answer)
            let suggestion = try #require(completion.suggestion)
            #expect(suggestion.kind == .recheck && suggestion.plantId == plantId && suggestion.identificationId == completion.result.id)
            #expect(suggestion.previousIdentificationId == saved.id && suggestion.currentSpecies == "Eranthemum pulchellum")
            #expect(suggestion.previousSpecies == "Eranthemum pulchellum" && suggestion.previousConfidence == 0.09)
            #expect(suggestion.previousModel == "resnet18-test" && suggestion.model == "2026-01 (7.3)")
            #expect(suggestion.suggestedSpecies == "Monstera deliciosa" && suggestion.confidence == 0.87)
            #expect(suggestion.createdAt == now && suggestion.resolution == nil)
            #expect(suggestion.headline == "Pl@ntNet thinks this is Monstera deliciosa (87 %)")
            #expect(try await second.recheck(ofIdentification: saved.id)?.state == .done)
            #expect(try await second.recheck(ofIdentification: saved.id)?.resultId == completion.result.id)
            #expect(try await second.identifications(plantId: plantId).map(\.id) == [completion.result.id, saved.id])

            // Agreeing with the plant makes no suggestion.
            let agreeingItem = try #require(try await first.recheck(ofIdentification: agreeing.id))
            let agreed = try #require(try await second.completeRecheck(
                agreeingItem.id, answer: Self.plantNetAnswer("Ficus lyrata L.", 0.9, at: now), now: now
            ))
            #expect(agreed.suggestion == nil)
            #expect(try await first.suggestions(plantId: agreeing.plantId, includeResolved: true).isEmpty)

            // The unsaved identification's photos go with its item; its answer stays in the history, without a photo.
            let unsavedItem = try #require(try await first.recheck(ofIdentification: unsaved.id))
            let lone = try #require(try await first.completeRecheck(
                unsavedItem.id, answer: Self.plantNetAnswer("Ficus benjamina", 0.9, at: now), now: now
            ))
            #expect(lone.releasedPhotos == [Self.photo(7), Self.photo(8)])
            #expect(lone.result.plantId == nil && lone.result.photoSHA256 == nil && lone.suggestion == nil)
            #expect(try await second.recheck(ofIdentification: unsaved.id)?.photos.isEmpty == true)
            #expect(try await second.recheckSummary() == RecheckSummary(queued: 0, done: 3, failed: 0, expired: 0, openSuggestions: 1))

            // Settling: the open suggestion is listed, accepted once (renaming the plant named after its old species).
            #expect(try await second.suggestions(plantId: nil, includeResolved: false) == [suggestion])
            #expect(try await second.suggestion(id: suggestion.id) == suggestion)
            #expect(try await second.suggestion(id: 999) == nil)
            let later = Self.time(days: 2)
            async let acceptOne = first.resolveSuggestion(suggestion.id, accept: true, species: nil, profile: nil, now: later)
            async let acceptTwo = second.resolveSuggestion(suggestion.id, accept: true, species: nil, profile: nil, now: later)
            let settles = [try? await acceptOne, try? await acceptTwo]
            #expect(settles.compactMap { $0 }.count == 1)
            let accepted = try #require(settles.compactMap { $0 }.first)
            #expect(try await stores[1].recognition.confirmation(ofPlant: plantId)?.species == "Monstera deliciosa")
            let renamed = try #require(try await stores[1].plants.plant(id: plantId))
            #expect(renamed.name == "Monstera deliciosa" && renamed.species == "Monstera deliciosa" && renamed.updatedAt == later)
            #expect(accepted.resolution == .accepted && accepted.resolvedAt == later)
            #expect(try await first.identifications(plantId: plantId).first?.chosenSpecies == "Monstera deliciosa")
            #expect(try await second.suggestions(plantId: plantId, includeResolved: false).isEmpty)
            #expect(try await second.suggestions(plantId: plantId, includeResolved: true) == [accepted])
            #expect(try await second.recheckSummary().openSuggestions == 0)
            await expectStoreError(.invalid("Suggestion \(suggestion.id) was already accepted.")) {
                try await first.resolveSuggestion(suggestion.id, accept: false, species: nil, profile: nil, now: later)
            }
            await expectStoreError(.invalid("No species suggestion with id 999. `plantguide recheck list` shows the open ones.")) {
                try await first.resolveSuggestion(999, accept: false, species: nil, profile: nil, now: later)
            }
        }
    }

    @Test(arguments: StateBackend.allCases)
    func itemsFailExpireAndAreAdopted(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let first = stores[0].history, second = stores[1].history
            let refused = try await Self.queue(first, Self.deviceAnswer("Ficus benjamina", 0.3, at: Self.time()), photos: [1], at: Self.time())
            let id = try #require(try await first.recheck(ofIdentification: refused.id)?.id)
            for attempt in 1...5 {
                let now = Self.time(seconds: Double(attempt))
                #expect(try await [first, second][attempt % 2].claimRecheck(id, now: now, lease: 60, claimant: "drain.test:1"))
                let released = try await [second, first][attempt % 2].failRecheck(id, reason: "400: the photo was refused", now: now)
                #expect(released == (attempt == 5 ? [Self.photo(1)] : []), "attempt \(attempt)")
            }
            let failed = try #require(try await second.recheck(ofIdentification: refused.id))
            #expect(failed.state == .failed && failed.attempts == 5 && failed.lastError == "400: the photo was refused")
            #expect(failed.finishedAt == Self.time(seconds: 5) && failed.photos.isEmpty)
            #expect(try await !first.claimRecheck(id, now: Self.time(days: 1), lease: 60, claimant: "drain.test:1"))
            #expect(try await first.failRecheck(id, reason: "again", now: Self.time(days: 1)).isEmpty)

            // An unsaved item past 30 days expires, letting its photos go (a photo a plant also shows stays).
            let old = try await Self.queue(first, Self.deviceAnswer("Ficus benjamina", 0.3, at: Self.time()), photos: [2, 3], at: Self.time())
            let kept = try await Self.queue(
                first, Self.deviceAnswer("Ficus lyrata", 0.4, at: Self.time()), photos: [3], plant: "Ficus lyrata", at: Self.time()
            )
            let adoptable = try await Self.queue(
                second, Self.deviceAnswer("Pilea", 0.3, at: Self.time(days: 10)), photos: [4], at: Self.time(days: 10)
            )
            let expired = try await second.expireRechecks(now: Self.time(days: 31))
            #expect(expired.expired == 1 && expired.released == [Self.photo(2)])
            #expect(try await first.recheck(ofIdentification: old.id)?.state == .expired)
            #expect(try await first.recheck(ofIdentification: old.id)?.finishedAt == Self.time(days: 31))
            #expect(try await first.expireRechecks(now: Self.time(days: 31)) == (0, []))
            #expect(try await first.recheck(ofIdentification: kept.id)?.state == .queued)

            // Adopting: the unsaved answer, filed under a plant, takes over its item (no longer expiring) and the
            // unsaved record goes.
            let filed = try await first.fileIdentification(
                adoptable.identification, photo: Self.photo(4), plantId: nil,
                newPlant: (NewPlant(name: "Pilea"), CareProfile.fixture()), chosenSpecies: nil, recheck: nil, now: Self.time(days: 11)
            )
            await expectStoreError(.invalid("Identification \(adoptable.id) is not filed under a plant.")) {
                try await first.adoptRecheck(from: filed.id, to: adoptable.id)
            }
            try await second.adoptRecheck(from: adoptable.id, to: filed.id)
            let adopted = try #require(try await first.recheck(ofIdentification: filed.id))
            #expect(adopted.plantId == filed.plantId && adopted.expiresAt == nil && adopted.photos.map(\.sha256) == [Self.photo(4).sha256])
            #expect(try await first.recheck(ofIdentification: adoptable.id) == nil)
            #expect(try await first.identifications(plantId: nil).contains { $0.id == adoptable.id } == false)
            // Adopting again does nothing.
            try await first.adoptRecheck(from: adoptable.id, to: filed.id)
            #expect(try await second.expireRechecks(now: Self.time(days: 60)).expired == 0)
            #expect(try await second.recheckSummary() == RecheckSummary(queued: 2, done: 0, failed: 1, expired: 1, openSuggestions: 0))
        }
    }

    @Test(arguments: StateBackend.allCases)
    func reScoringSuggestsAndASuggestionCanBeDismissed(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let first = stores[0].history, second = stores[1].history
            let filed = try await first.fileIdentification(
                Self.deviceAnswer("Ficus benjamina", 0.6, model: "old-model", at: Self.time()), photo: Self.photo(1), plantId: nil,
                newPlant: (NewPlant(name: "Benny", species: "Ficus benjamina"), CareProfile.fixture()), chosenSpecies: nil,
                recheck: nil, now: Self.time()
            )
            let plantId = try #require(filed.plantId)
            let candidates = try await second.rescoreCandidates(model: "new-model")
            #expect(candidates.map(\.identification) == [filed])
            #expect(candidates.first?.plant.id == plantId && candidates.first?.plant.name == "Benny")
            #expect(candidates.first?.photoSHA256 == Self.photo(1).sha256)
            #expect(try await second.rescoreCandidates(model: "old-model").isEmpty)

            let answer = Self.deviceAnswer("Ficus elastica", 0.8, model: "new-model", at: Self.time(days: 1))
            let (result, suggestion) = try await second.fileRescore(answer, of: filed, photoSHA256: Self.photo(1).sha256, now: Self.time(days: 1))
            #expect(result.recheckOf == filed.id && result.plantId == plantId && result.photoSHA256 == Self.photo(1).sha256)
            let made = try #require(suggestion)
            #expect(made.kind == .rescore && made.currentSpecies == "Ficus benjamina" && made.suggestedSpecies == "Ficus elastica")
            #expect(made.headline == "The new model (new-model) thinks this is Ficus elastica (80 %)")
            #expect(try await first.rescoreCandidates(model: "new-model").isEmpty)
            // A newer suggestion supersedes the open one.
            let again = Self.deviceAnswer("Ficus lyrata", 0.7, model: "newer-model", at: Self.time(days: 2))
            let (_, newer) = try await first.fileRescore(again, of: result, photoSHA256: String(repeating: "f", count: 64), now: Self.time(days: 2))
            #expect(try await second.suggestion(id: made.id)?.resolution == .superseded)
            let open = try #require(newer)
            #expect(try await second.suggestions(plantId: plantId, includeResolved: true).map(\.id) == [open.id, made.id])
            let dismissed = try await second.resolveSuggestion(open.id, accept: false, species: nil, profile: nil, now: Self.time(days: 3))
            #expect(dismissed.resolution == .dismissed && dismissed.resolvedAt == Self.time(days: 3))
            #expect(try await first.suggestions(plantId: nil, includeResolved: false).isEmpty)
            #expect(try await first.identifications(plantId: plantId).first { $0.id == open.identificationId }?.chosenSpecies == nil)
            await expectStoreError(.invalid("Identification \(filed.id) is not filed under a plant.")) {
                var unfiled = filed
                unfiled.plantId = nil
                _ = try await first.fileRescore(answer, of: unfiled, photoSHA256: Self.photo(1).sha256, now: Self.time(days: 4))
            }
        }
    }
}
