import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// The re-check queue on a real SQLite file: what is queued with which photos, the order it is sent in, the reserve,
/// suggestions, claims of dead processes, failures and expiry. Pl@ntNet is played by a closure here; the command line
/// tests drive the same queue against the project's Pl@ntNet stub.
@Suite struct RecheckQueueTests {
    private let clock = TestClock("2026-06-01T10:00:00Z")

    private func open(_ home: TemporaryHome) throws -> PlantCollection {
        try PlantCollection.open(in: home.directory, encoder: .storingOriginal, lookup: { _ in nil }) { [clock] in clock.now }
    }

    private func deviceAnswer(_ species: String, _ confidence: Double) -> Identification {
        Identification(
            source: .onDevice, model: "resnet18-test",
            predictions: [SpeciesPrediction(rank: 1, scientificName: species, confidence: confidence)],
            uncertain: confidence < 0.7, date: clock.now
        )
    }

    private func plantNetAnswer(_ species: String, _ confidence: Double) -> Identification {
        Identification(
            source: .plantNetAPI, model: "2026-01 (7.3)",
            predictions: [SpeciesPrediction(rank: 1, scientificName: species, confidence: confidence)], uncertain: false, date: clock.now
        )
    }

    private func photo(_ seed: UInt8) -> Data { Data([0x89, 0x50, 0x4E, 0x47, seed, seed &+ 1]) }

    /// Queues one identification, saved under a new plant when `plantSpecies` is given.
    @discardableResult
    private func queue(
        _ collection: PlantCollection, device: Identification, seeds: [UInt8], plant: String? = nil, reason: RecheckReason = .offline
    ) async throws -> FiledIdentification {
        try await collection.fileIdentification(
            device, photo: plant == nil ? nil : photo(seeds[0]), createPlant: plant != nil, chosenSpecies: plant,
            recheck: (reason: reason, photos: seeds.enumerated().map { (photo($0.element), $0.offset == 0 ? "leaf" : "flower") })
        )
    }

    @Test func queuedItemsKeepTheirPhotosAndOrgansAndGoSavedPlantsFirstThenOldestFirst() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        let unsavedOld = try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.3), seeds: [1, 2])
        clock.advance(days: 1)
        let savedNew = try await queue(collection, device: deviceAnswer("Ficus lyrata", 0.4), seeds: [3], plant: "Ficus lyrata")
        clock.advance(days: 1)
        let savedNewer = try await queue(collection, device: deviceAnswer("Pilea peperomioides", 0.5), seeds: [4], plant: "Pilea peperomioides")

        let queued = try collection.database.queuedRechecks(now: clock.now)
        #expect(queued.map(\.identificationId) == [savedNew.id, savedNewer.id, unsavedOld.id])
        let unsaved = try #require(queued.last)
        #expect(unsaved.plantId == nil)
        #expect(unsaved.photos.map(\.organ) == ["leaf", "flower"])
        #expect(unsaved.photos.count == 2)
        #expect(unsaved.expiresAt == unsavedOld.identification.date.addingTimeInterval(30 * 86_400))
        #expect(queued.first?.expiresAt == nil)
        // The photos of the unsaved one are kept for the re-check without being filed on the identification.
        #expect(unsavedOld.photoSHA256 == nil)
        for item in queued {
            for queuedPhoto in item.photos {
                let stored = try #require(try collection.database.photo(sha256: queuedPhoto.sha256))
                #expect(FileManager.default.fileExists(atPath: collection.photos.url(of: stored).path))
            }
        }
        #expect(try collection.database.queuedRechecks(now: clock.now, limit: 1).map(\.identificationId) == [savedNew.id])
    }

    @Test func anAnswerJoinsTheHistoryFlagsADifferentSpeciesAndLetsUnsavedPhotosGo() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        let saved = try await queue(collection, device: deviceAnswer("Eranthemum pulchellum", 0.09), seeds: [1], plant: "Eranthemum pulchellum")
        let unsaved = try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.2), seeds: [7])
        let agreeing = try await queue(collection, device: deviceAnswer("Ficus lyrata", 0.5), seeds: [9], plant: "Ficus lyrata")
        let unsavedPhoto = try #require(try collection.database.recheck(ofIdentification: unsaved.id)?.photos.first?.sha256)
        let unsavedFile = collection.photos.url(of: try #require(try collection.database.photo(sha256: unsavedPhoto)))
        let asked = Asked()
        let drain = RecheckDrain(collection: collection, reserve: 0, budget: { RecheckBudget(remaining: nil, blocked: false) }) { photos, organs in
            asked.record(photos.count)
            let species = photos.first == self.photo(9) ? "Ficus lyrata" : "Monstera deliciosa"
            return .answered(self.plantNetAnswer(species, 0.87), remainingRequests: 100)
        }
        let run = try await drain.run()
        #expect(run.sent == 3)
        #expect(asked.count == 3)
        #expect(run.changed == 1)
        #expect(run.skipped == 0)
        #expect(try collection.database.queuedRechecks(now: clock.now).isEmpty)

        // The saved plant: the answer is filed under it, pointing at what it checked, and a suggestion waits.
        let plantId = try #require(saved.plantId)
        let history = try collection.database.identifications(plantId: plantId)
        #expect(history.count == 2)
        let result = try #require(history.first { $0.recheckOf == saved.id })
        #expect(result.identification.source == .plantNetAPI)
        #expect(try collection.database.recheck(ofIdentification: saved.id)?.state == .done)
        #expect(try collection.database.recheck(ofIdentification: saved.id)?.resultId == result.id)
        let suggestion = try #require(try collection.database.suggestions(plantId: plantId).first)
        #expect(suggestion.headline == "Pl@ntNet thinks this is Monstera deliciosa (87 %)")
        #expect(suggestion.currentSpecies == "Eranthemum pulchellum")
        #expect(try collection.database.plant(id: plantId)?.name == "Eranthemum pulchellum")  // never renamed by itself

        // Pl@ntNet agreeing with the plant's species makes no suggestion.
        #expect(try collection.database.suggestions(plantId: agreeing.plantId).isEmpty)

        // The unsaved identification's photo is let go with its re-check; its answer stays in the history.
        #expect(try collection.database.photo(sha256: unsavedPhoto) == nil)
        #expect(!FileManager.default.fileExists(atPath: unsavedFile.path))
        #expect(try collection.database.identifications().contains { $0.recheckOf == unsaved.id && $0.plantId == nil })

        // Accepting renames the plant (its name was the old species) and records the choice; a second settle is refused.
        let accepted = try await collection.acceptSuggestion(suggestion.id)
        #expect(accepted.resolution == .accepted)
        let plant = try #require(try collection.database.plant(id: plantId))
        #expect(plant.species == "Monstera deliciosa")
        #expect(plant.name == "Monstera deliciosa")
        #expect(try collection.database.confirmation(ofPlant: plantId)?.species == "Monstera deliciosa")
        #expect(try collection.database.identifications(plantId: plantId).first { $0.id == result.id }?.chosenSpecies == "Monstera deliciosa")
        await #expect(throws: StoreError.self) { try await collection.dismissSuggestion(suggestion.id) }
        #expect(try collection.database.suggestions(plantId: plantId).isEmpty)
        #expect(try collection.database.suggestions(plantId: plantId, includeResolved: true).count == 1)
    }

    @Test func theQueueStopsAtTheReserveAndOnAStopWithoutCountingAnAttempt() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        for seed: UInt8 in 1...4 { try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.3), seeds: [seed * 10]) }
        let left = Remaining(3)
        let drain = RecheckDrain(collection: collection, reserve: 1, budget: { RecheckBudget(remaining: left.value, blocked: false) }) { _, _ in
            left.spend()
            return .answered(self.plantNetAnswer("Ficus benjamina", 0.9), remainingRequests: left.value)
        }
        let dry = try await drain.run(dryRun: true)
        #expect(dry.dryRun && dry.sent == 2 && dry.remainingQuota == 1)
        #expect(left.value == 3)  // a dry run sends nothing
        let run = try await drain.run()
        #expect(run.sent == 2)
        #expect(run.skipped == 2)
        #expect(run.remainingQuota == 1)
        #expect(run.stoppedBecause == RecheckStop.reserve(remaining: 1, reserve: 1).description)

        // A 429 (or offline) stops the run and leaves the item as it was, its attempt not counted.
        let stopping = RecheckDrain(collection: collection, reserve: 0, budget: { RecheckBudget(remaining: nil, blocked: false) }) { _, _ in
            .stop(.quotaExhausted)
        }
        let stopped = try await stopping.run()
        #expect(stopped.sent == 0 && stopped.skipped == 2)
        #expect(stopped.stoppedBecause == RecheckStop.quotaExhausted.description)
        #expect(try collection.database.queuedRechecks(now: clock.now).map(\.attempts) == [0, 0])
        let blocked = RecheckDrain(collection: collection, reserve: 0, budget: { RecheckBudget(remaining: 0, blocked: true) }) { _, _ in
            Issue.record("nothing may be sent while the quota is blocked")
            return .stop(.quotaExhausted)
        }
        #expect(try await blocked.run().sent == 0)
    }

    private func diagnosis(_ code: String, _ score: Double) -> Diagnosis {
        Diagnosis(
            source: .plantNetAPI, model: "2025-03-10 (diseases 1.2)",
            candidates: [DiseaseCandidate(rank: 1, eppoCode: code, name: "Grey mould", inDiseaseList: true, score: score)],
            language: "fr", date: clock.now
        )
    }

    @Test func diagnosesKeptForLaterGoFirstInTheirLanguageAndTakeTheirAnswer() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        let fern = try await collection.addPlant(name: "Fern")
        let record = try await collection.keepDiagnosisForLater(
            photos: [(photo(1), "leaf"), (photo(2), "flower")], language: "fr", note: "spots", plantId: fern.id
        )
        try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.3), seeds: [30])
        let order = Order()
        let left = Remaining(10)
        let drain = RecheckDrain(
            collection: collection, reserve: 0, budget: { RecheckBudget(remaining: left.value, blocked: false) },
            ask: { _, _ in
                order.note("identify")
                left.spend()
                return .answered(self.plantNetAnswer("Ficus benjamina", 0.9), remainingRequests: left.value)
            },
            diagnose: { photos, organs, language in
                order.note("diagnose \(photos.count) \(organs.joined(separator: ",")) \(language)")
                #expect(photos == [self.photo(1), self.photo(2)], "the record's photos as stored, in order")
                left.spend()
                return .answered(self.diagnosis("BOTRCI", 0.62), remainingRequests: left.value)
            }
        )
        let dry = try await drain.run(dryRun: true)
        #expect(dry.diagnosed == 1 && dry.sent == 1 && dry.diagnosesWaiting == 0 && dry.diagnoses.map(\.outcome) == [.wouldSend])
        #expect(order.calls.isEmpty)
        let run = try await drain.run()
        #expect(order.calls == ["diagnose 2 leaf,flower fr", "identify"])
        #expect(run.diagnosed == 1 && run.diagnosesWaiting == 0 && run.sent == 1)
        #expect(run.diagnoses.map(\.healthRecordId) == [record.id])
        #expect(run.diagnoses.first?.disease == "Grey mould (BOTRCI)")
        #expect(run.diagnoses.first?.score == 0.62)
        let kept = try #require(try collection.database.healthRecords(plantId: fern.id).first)
        #expect(kept.diagnosis == diagnosis("BOTRCI", 0.62))
        #expect(kept.note == "spots")
        #expect(kept.waiting == nil)
        // Nothing waits any more: the next run sends nothing.
        #expect(try await drain.run().diagnoses.isEmpty)
        #expect(order.calls.count == 2)
    }

    @Test func aWaitingDiagnosisStopsWithTheServiceGivesUpWhenRefusedAndAfterFiveFailures() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        let fern = try await collection.addPlant(name: "Fern")
        let refused = try await collection.keepDiagnosisForLater(photos: [(photo(1), "leaf")], language: "en", note: nil, plantId: fern.id)
        clock.advance(days: 1)
        let failing = try await collection.keepDiagnosisForLater(photos: [(photo(2), "leaf")], language: "en", note: nil, plantId: fern.id)
        let identify: @Sendable ([Data], [String]) async -> RecheckAnswer = { _, _ in .stop(.offline("unused")) }

        // Offline: the run stops, the record waits as it was (its try not counted).
        let offline = try await RecheckDrain(
            collection: collection, reserve: 0, budget: { RecheckBudget(remaining: nil, blocked: false) }, ask: identify,
            diagnose: { _, _, _ in .stop(.offline("no route to host")) }
        ).run()
        #expect(offline.diagnosed == 0 && offline.diagnosesWaiting == 2)
        #expect(offline.stoppedBecause == RecheckStop.offline("no route to host").description)
        #expect(try collection.database.waitingHealthRecords().map { $0.waiting?.attempts } == [0, 0])

        // A blocked quota sends nothing.
        let blocked = try await RecheckDrain(
            collection: collection, reserve: 0, budget: { RecheckBudget(remaining: 0, blocked: true) }, ask: identify,
            diagnose: { _, _, _ in
                Issue.record("nothing may be sent while the quota is blocked")
                return .stop(.quotaExhausted)
            }
        ).run()
        #expect(blocked.diagnosesWaiting == 2)

        // Pl@ntNet sees no plant: the record gives up at once. A malformed answer counts a try, five give up.
        let failures = RecheckDrain(
            collection: collection, reserve: 0, budget: { RecheckBudget(remaining: nil, blocked: false) }, ask: identify,
            diagnose: { photos, _, _ in photos == [self.photo(1)] ? .rejected : .failed("malformed answer") }
        )
        let first = try await failures.run()
        #expect(first.diagnoses.map(\.outcome) == [.gaveUp, .failed])
        #expect(first.diagnosesWaiting == 1)
        for _ in 2...HealthRecord.maximumAttempts { _ = try await failures.run() }
        #expect(try collection.database.waitingHealthRecords().isEmpty)
        let records = try collection.database.healthRecords(plantId: fern.id)
        #expect(records.first { $0.id == refused.id }?.summary == "Diagnosis: not made (Pl@ntNet did not recognise a plant in the photos)")
        #expect(records.first { $0.id == failing.id }?.waiting?.attempts == HealthRecord.maximumAttempts)
        #expect(records.first { $0.id == failing.id }?.summary == "Diagnosis: not made (malformed answer)")
        // Their photos stay with them.
        #expect(records.allSatisfy { $0.photos.count == 1 })
    }

    @Test func anItemFailsAfterFiveAttemptsAndAnUnsavedOneExpiresAfterThirtyDays() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        let refused = try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.3), seeds: [1])
        let failing = RecheckDrain(collection: collection, reserve: 0, budget: { RecheckBudget(remaining: nil, blocked: false) }) { _, _ in
            .failed("400: the photo was refused")
        }
        for attempt in 1...5 {
            let run = try await failing.run()
            #expect(run.failed == 1, "attempt \(attempt)")
        }
        let item = try #require(try collection.database.recheck(ofIdentification: refused.id))
        #expect(item.state == .failed)
        #expect(item.attempts == 5)
        #expect(item.lastError == "400: the photo was refused")
        #expect(try await failing.run().failed == 0)  // not sent again

        let old = try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.3), seeds: [2])
        let sha = try #require(try collection.database.recheck(ofIdentification: old.id)?.photos.first?.sha256)
        clock.advance(days: 31)
        let never = RecheckDrain(collection: collection, reserve: 0, budget: { RecheckBudget(remaining: nil, blocked: false) }) { _, _ in
            Issue.record("an expired item must not be sent")
            return .stop(.quotaExhausted)
        }
        let run = try await never.run()
        #expect(run.expired == 1)
        #expect(try collection.database.recheck(ofIdentification: old.id)?.state == .expired)
        #expect(try collection.database.photo(sha256: sha) == nil)
    }

    @Test func aClaimHoldsOnlyWhileItsProcessLivesAndACommittedAnswerIsNeverRecordedTwice() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let collection = try open(home)
        let filed = try await queue(collection, device: deviceAnswer("Ficus benjamina", 0.3), seeds: [1])
        let id = try #require(try collection.database.recheck(ofIdentification: filed.id)?.id)
        let database = try collection.database
        // A live process (this one) holds its claim against another claimant…
        #expect(try database.claimRecheck(id, now: clock.now))
        #expect(try !database.claimRecheck(id, now: clock.now, claimant: "\(ProcessInfo.processInfo.hostName):1"))
        // …but a claim of a process that no longer runs is taken over at once.
        let dead = try deadProcessIdentity()
        let other = try CollectionDatabase.open(in: home.directory)
        try other.releaseRecheck(id)
        #expect(try other.claimRecheck(id, now: clock.now, claimant: dead))
        #expect(try database.claimRecheck(id, now: clock.now))

        let first = try database.completeRecheck(id, answer: plantNetAnswer("Ficus benjamina", 0.9), now: clock.now)
        #expect(first != nil)
        #expect(try database.completeRecheck(id, answer: plantNetAnswer("Ficus benjamina", 0.9), now: clock.now) == nil)
        #expect(try database.identifications().filter { $0.recheckOf == filed.id }.count == 1)
        #expect(try !database.claimRecheck(id, now: clock.now))
    }

    @Test func processesAreNamedWithANonceAndTheDeadAreTold() throws {
        let current = ProcessIdentity.current
        #expect(current.hasPrefix("\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)/"))
        #expect(current.split(separator: "/").last.map { $0.count >= 1 && UInt64($0, radix: 16) != nil } == true)
        #expect(ProcessIdentity.isAlive(current))
        let dead = try deadProcessIdentity()
        #expect(!ProcessIdentity.isAlive(dead))
        #expect(!ProcessIdentity.isAlive(dead + "/0123abcd"), "the nonce does not hide a dead process")
        #expect(ProcessIdentity.isAlive("another-host.example:1/ff"), "a process on another host counts as running")
    }

    /// The `host:pid` of a process that has exited.
    private func deadProcessIdentity() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return "\(ProcessInfo.processInfo.hostName):\(process.processIdentifier)"
    }
}

/// Counts calls from the drain's closure.
private final class Asked: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    func record(_ photos: Int) { lock.withLock { calls += 1 } }
    var count: Int { lock.withLock { calls } }
}

/// A quota counter the fake Pl@ntNet spends.
private final class Remaining: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    init(_ value: Int) { left = value }
    var value: Int { lock.withLock { left } }
    func spend() { lock.withLock { left -= 1 } }
}

/// The calls the fake Pl@ntNet received, in order.
private final class Order: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func note(_ call: String) { lock.withLock { list.append(call) } }
    var calls: [String] { lock.withLock { list } }
}
