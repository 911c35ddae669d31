import Foundation
import GRDB
import PlantGuideCore
import PlantGuideTestSupport
import PlantStorePostgres
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

extension TestStore {
    /// Every part of the collection (plants, care, history, recognition, statistics, transfer).
    var householdCollection: any CollectionStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }

    /// Accounts and households.
    var householdAccounts: any AccountStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }

    /// The same store with no default household: outside a task's scope every collection operation must fail closed.
    var requiringScope: TestStore {
        switch self {
        case .sqlite(let database): .sqlite(database.scoped(to: nil))
        case .postgres(let store): .postgres(store.scoped(to: nil))
        }
    }

    /// Runs one statement of raw SQL (for the constraint tests), throwing what the database says.
    func executeRaw(_ sql: String) async throws {
        switch self {
        case .sqlite(let database): try await database.writer.write { db in try db.execute(sql: sql) }
        case .postgres(let store): try await store.execute(sql, operation: "run a test statement")
        }
    }
}

/// Two households in one database, on every backend: household B, calling every collection operation with household
/// A's ids, sees nothing of A and changes nothing of A; a store with no household fails closed; accounts belong to one
/// household each, whose first account is its owner and whose last owner stays.
@Suite struct SharedHouseholdStoreTests {
    /// 2026-11-24 08:30:00.250 UTC.
    private static let now = Date(timeIntervalSince1970: 1_795_509_000.25)
    private static let model = EmbeddingModel(name: "resnet18-index", checksum: String(repeating: "c", count: 64))
    private static let alice = HouseholdScope(household: 1, user: nil, userName: "alice")

    private static func time(_ minutes: Double) -> Date { now.addingTimeInterval(minutes * 60) }

    private static func deviceAnswer(_ species: String, _ confidence: Double, model: String, at date: Date) -> Identification {
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

    private static func run(_ date: Date, _ source: IdentificationSource) -> IdentificationRun {
        IdentificationRun(
            date: date, strategy: "hybrid", source: source, cacheHit: source == .cache, apiCalled: source == .plantNetAPI,
            remainingRequests: source == .plantNetAPI ? 420 : nil, timings: ["total": 321]
        )
    }

    /// Household A's ids, as the seed made them.
    struct SeedA: Sendable {
        var fern: Plant
        var cactus: Plant
        var filedFern: FiledIdentification
        var deviceCactus: FiledIdentification
        var unsaved: FiledIdentification
        var queuedRecheck: Int64
        var suggestion: Int64
        var eventId: Int64
        var photos: [StoredPhoto]
    }

    /// Fills household A (run inside A's scope): two plants with photos, care settings and events, identifications
    /// (filed, on-device, unsaved with a re-check queued), a completed re-check that made a suggestion, a confirmation,
    /// an embedding, and identification runs.
    private static func seedA(_ store: TestStore) async throws -> SeedA {
        let collection = store.householdCollection
        let photos = (1...5).map { storedPhoto(40 + $0, at: now) }
        let fern = try await collection.addPlant(
            NewPlant(name: "Fern", species: "Nephrolepis exaltata", room: "Hall"), profile: .fixture(), photo: photos[0], now: now
        )
        let cactus = try await collection.addPlant(NewPlant(name: "Cactus", room: "Hall"), profile: .fixture(), photo: nil, now: now)
        try await collection.attachPhoto(photos[1], toPlant: cactus.id, now: time(1))
        try await collection.updateScheduleSettings(plantId: fern.id, task: .water) { $0.growingDays = 5 }
        let event = try await collection.logCare(plantId: fern.id, task: .water, day: day("2026-11-20"), note: "rain water", now: time(2))
        #expect(event.recordedBy == "alice")
        let filedFern = try await collection.fileIdentification(
            plantNetAnswer("Nephrolepis exaltata", 0.9, at: time(3)), photo: photos[0], plantId: fern.id, newPlant: nil,
            chosenSpecies: nil,
            recheck: RecheckRequest(reason: .uncertain, photos: [(photos[0], "leaf")]), now: time(3)
        )
        #expect(filedFern.recordedBy == "alice")
        let deviceCactus = try await collection.fileIdentification(
            deviceAnswer("Ficus lyrata", 0.8, model: "old-model", at: time(4)), photo: photos[1], plantId: cactus.id, newPlant: nil,
            chosenSpecies: nil, recheck: nil, now: time(4)
        )
        let unsaved = try await collection.fileIdentification(
            deviceAnswer("Monstera deliciosa", 0.3, model: "old-model", at: time(5)), photo: photos[2], plantId: nil, newPlant: nil,
            chosenSpecies: nil, recheck: RecheckRequest(reason: .offline, photos: [(photos[2], "leaf"), (photos[3], "flower")]),
            now: time(5)
        )
        let doneItem = try #require(try await collection.recheck(ofIdentification: filedFern.id))
        #expect(try await collection.claimRecheck(doneItem.id, now: time(6), lease: 120, claimant: "seed"))
        let completion = try #require(
            try await collection.completeRecheck(doneItem.id, answer: plantNetAnswer("Nephrolepis cordifolia", 0.6, at: time(6)), now: time(6))
        )
        let suggestion = try #require(completion.suggestion)
        let queued = try #require(try await collection.recheck(ofIdentification: unsaved.id))
        try await collection.confirmSpecies(
            SpeciesConfirmation(species: "Nephrolepis exaltata", source: .name), ofPlant: fern.id, now: time(7)
        )
        try await collection.setEmbedding([0.25, 0.5, 0.75, 1], model: model, forPhoto: photos[0].sha256, now: time(8))
        try await collection.recordIdentificationRun(run(time(9), .plantNetAPI), now: time(9), retention: .standard)
        try await collection.recordIdentificationRun(run(time(10), .onDevice), now: time(10), retention: .standard)
        return SeedA(
            fern: fern, cactus: cactus, filedFern: filedFern, deviceCactus: deviceCactus, unsaved: unsaved, queuedRecheck: queued.id,
            suggestion: suggestion.id, eventId: event.id, photos: photos
        )
    }

    /// Everything of household A a read can show, to compare before and after household B acts.
    private static func stateOfA(_ collection: any CollectionStore) async throws -> String {
        let export = try await collection.exportSnapshot(now: now, generator: "test")
        let rechecks = try await collection.rechecks(limit: nil)
        let suggestions = try await collection.suggestions(plantId: nil, includeResolved: true)
        let runs = try await collection.identificationRuns(last: 100)
        let confirmations = try await collection.plants(room: nil).map { plant in "\(plant.id)" }
        return "\(export)|\(rechecks)|\(suggestions)|\(runs)|\(confirmations)|\(try await collection.exemplarsVersion(model: model))"
    }

    @Test(arguments: StateBackend.allCases)
    func anotherHouseholdSeesAndChangesNothingOfHouseholdA(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let a = stores[0].householdCollection, b = stores[1].householdCollection
            let seed = try await HouseholdScope.$current.withValue(Self.alice) { try await Self.seedA(stores[0]) }
            let joneses = try await stores[1].householdAccounts.createHousehold(named: "Joneses", now: Self.now)
            let bob = HouseholdScope(household: joneses.id, user: nil, userName: "bob")
            let before = try await HouseholdScope.$current.withValue(Self.alice) { try await Self.stateOfA(a) }
            let versionA = try await HouseholdScope.$current.withValue(Self.alice) { try await a.exemplarsVersion(model: Self.model) }
            let exportA = try await HouseholdScope.$current.withValue(Self.alice) {
                try await a.exportSnapshot(now: Self.now, generator: "test")
            }
            #expect(exportA.plants.count == 2)
            #expect(exportA.identifications.count == 4)

            try await HouseholdScope.$current.withValue(bob) {
                let fern = seed.fern.id, cactus = seed.cactus.id
                // Plants and photos.
                #expect(try await b.plant(id: fern) == nil)
                #expect(try await b.plants(room: nil).isEmpty)
                #expect(try await b.plants(room: "Hall").isEmpty)
                #expect(try await b.plantCount() == 0)
                await expectPlantNotFound(fern) { try await b.details(ofPlant: fern) }
                var renamed = seed.fern
                renamed.name = "Stolen"
                await expectPlantNotFound(fern) { try await b.updatePlant(renamed, now: Self.time(20)) }
                await expectPlantNotFound(cactus) { try await b.removePlant(id: cactus) }
                await expectPlantNotFound(fern) { try await b.attachPhoto(seed.photos[4], toPlant: fern, now: Self.time(20)) }
                await expectPlantNotFound(fern) { try await b.photos(ofPlant: fern) }
                #expect(try await b.coverPhoto(ofPlant: fern) == nil)
                await expectPlantNotFound(cactus) { try await b.setCoverPhoto(seed.photos[1].sha256, ofPlant: cactus, now: Self.time(20)) }
                await expectPlantNotFound(cactus) { try await b.detachPhoto(seed.photos[1].sha256, fromPlant: cactus, now: Self.time(20)) }
                // Byte de-duplication stays install-wide (the caller has the bytes); reading by address does not.
                #expect(try await b.photo(originalSHA256: seed.photos[0].originalSHA256)?.sha256 == seed.photos[0].sha256)
                for photo in seed.photos { #expect(try await b.photo(sha256: photo.sha256) == nil) }
                #expect(try await b.allPhotos().isEmpty)
                // Care.
                await expectPlantNotFound(fern) {
                    try await b.logCare(plantId: fern, task: .water, day: day("2026-11-24"), note: nil, now: Self.time(20))
                }
                #expect(try await b.events(plantId: fern).isEmpty)
                #expect(try await b.events(plantId: nil).isEmpty)
                await expectPlantNotFound(fern) { try await b.setProfile(.fixture(water: 1), forPlant: fern) }
                await expectPlantNotFound(fern) { try await b.updateScheduleSettings(plantId: fern, task: .water) { $0.paused = true } }
                #expect(try await b.careStates(plantId: nil, room: nil).isEmpty)
                #expect(try await b.careStates(plantId: fern, room: nil).isEmpty)
                #expect(try await b.careStates(plantId: nil, room: "Hall").isEmpty)
                // History, re-checks, re-scoring and suggestions.
                await expectPlantNotFound(fern) {
                    try await b.fileIdentification(
                        Self.plantNetAnswer("Ficus", 0.5, at: Self.time(20)), photo: nil, plantId: fern, newPlant: nil, chosenSpecies: nil,
                        recheck: nil, now: Self.time(20)
                    )
                }
                #expect(try await b.identifications(plantId: nil).isEmpty)
                #expect(try await b.identifications(plantId: fern).isEmpty)
                #expect(try await b.queuedRechecks(now: Self.time(20), limit: nil).isEmpty)
                #expect(try await b.queuedRecheckCount(now: Self.time(20)) == 0)
                #expect(try await b.rechecks(limit: nil).isEmpty)
                #expect(try await b.recheck(ofIdentification: seed.unsaved.id) == nil)
                #expect(try await b.rechecks(ofIdentifications: [seed.unsaved.id, seed.filedFern.id]).isEmpty)
                #expect(try await b.recheckSummary() == RecheckSummary(queued: 0, done: 0, failed: 0, expired: 0, openSuggestions: 0))
                #expect(try await b.claimRecheck(seed.queuedRecheck, now: Self.time(20), lease: 120, claimant: "bob") == false)
                try await b.releaseRecheck(seed.queuedRecheck)
                for _ in 0..<6 { #expect(try await b.failRecheck(seed.queuedRecheck, reason: "nope", now: Self.time(20)).isEmpty) }
                #expect(try await b.completeRecheck(
                    seed.queuedRecheck, answer: Self.plantNetAnswer("Ficus", 0.9, at: Self.time(20)), now: Self.time(20)
                ) == nil)
                let expired = try await b.expireRechecks(now: Self.time(100_000))
                #expect(expired.expired == 0 && expired.released.isEmpty)
                await #expect(throws: StoreError.self) { try await b.adoptRecheck(from: seed.unsaved.id, to: seed.filedFern.id) }
                #expect(try await b.rescoreCandidates(model: "new-model").isEmpty)
                await #expect(throws: StoreError.self) {
                    try await b.fileRescore(
                        Self.deviceAnswer("Ficus", 0.9, model: "new-model", at: Self.time(20)), of: seed.deviceCactus,
                        photoSHA256: seed.photos[1].sha256, now: Self.time(20)
                    )
                }
                #expect(try await b.suggestions(plantId: nil, includeResolved: true).isEmpty)
                #expect(try await b.suggestions(plantId: fern, includeResolved: true).isEmpty)
                #expect(try await b.suggestion(id: seed.suggestion) == nil)
                await #expect(throws: StoreError.self) {
                    try await b.resolveSuggestion(seed.suggestion, accept: true, species: nil, profile: nil, now: Self.time(20))
                }
                // Recognition.
                await expectPlantNotFound(fern) { try await b.confirmation(ofPlant: fern) }
                await expectPlantNotFound(cactus) {
                    try await b.confirmSpecies(SpeciesConfirmation(species: "Ficus", source: .name), ofPlant: cactus, now: Self.time(20))
                }
                await expectPlantNotFound(fern) { try await b.unconfirmSpecies(ofPlant: fern) }
                #expect(try await b.embeddingCoverage(model: Self.model) == EmbeddingCoverage(photos: 0, current: 0, stale: 0, missing: 0))
                #expect(try await b.photosNeedingEmbedding(model: Self.model).isEmpty)
                #expect(try await b.exemplars(model: Self.model).isEmpty)
                #expect(try await b.exemplarsVersion(model: Self.model) != versionA)
                // Statistics: the runs are per household, Pl@ntNet's quota use per install.
                #expect(try await b.identificationRuns(last: 100).isEmpty)
                #expect(try await b.identificationStatistics(last: 100, days: 30, now: Self.time(20)).identifications == 0)
                #expect(try await b.plantNetUsePerDay(days: 30, now: Self.time(20)).map(\.apiCalls) == [1])
                // Transfer.
                let exportB = try await b.exportSnapshot(now: Self.now, generator: "test")
                #expect(exportB.plants.isEmpty && exportB.photos.isEmpty && exportB.identifications.isEmpty)
            }

            // B's own writes, and A's export imported into B, leave A as it was.
            let imported = try await HouseholdScope.$current.withValue(bob) {
                let own = try await b.addPlant(NewPlant(name: "Fern", room: "Hall"), profile: .fixture(), photo: nil, now: Self.time(30))
                let event = try await b.logCare(plantId: own.id, task: .water, day: day("2026-11-24"), note: nil, now: Self.time(30))
                #expect(event.recordedBy == "bob")
                try await b.recordIdentificationRun(Self.run(Self.time(30), .cache), now: Self.time(30), retention: .standard)
                let summary = try await b.importRows(exportA)
                #expect(summary.plantsAdded == 2 && summary.plantsAlreadyPresent == 0)
                #expect(summary.eventsAdded == 1)
                #expect(summary.identificationsAdded == 4)
                // A's UUIDs stay A's: B's rows get UUIDs derived for B, so the same archive again adds nothing.
                let again = try await b.importRows(exportA)
                #expect(again.plantsAdded == 0 && again.plantsAlreadyPresent == 2, "\(again)")
                #expect(again.eventsAdded == 0 && again.identificationsAdded == 0, "\(again)")
                return try await b.exportSnapshot(now: Self.now, generator: "test")
            }
            #expect(imported.plants.count == 3)
            // An archive that names A's photo without carrying its file gains no access to it.
            let carols = try await stores[0].householdAccounts.createHousehold(named: "Carols", now: Self.now)
            try await HouseholdScope.$current.withValue(HouseholdScope(household: carols.id)) { () async throws in
                var forged = exportA
                forged.photos = []
                _ = try await b.importRows(forged)
                #expect(try await b.photo(sha256: seed.photos[0].sha256) == nil)
                #expect(try await b.allPhotos().isEmpty)
            }
            #expect(Set(imported.plants.map(\.uuid)).isDisjoint(with: exportA.plants.map(\.uuid)))
            #expect(Set(imported.identifications.map(\.uuid)).isDisjoint(with: exportA.identifications.map(\.uuid)))
            #expect(imported.photos.map(\.sha256).contains(seed.photos[0].sha256))

            let after = try await HouseholdScope.$current.withValue(Self.alice) { try await Self.stateOfA(a) }
            #expect(after == before)
            try await HouseholdScope.$current.withValue(Self.alice) {
                #expect(try await a.plantCount() == 2)
                #expect(try await a.events(plantId: nil).map(\.recordedBy) == ["alice"])
                let item = try #require(try await a.recheck(ofIdentification: seed.unsaved.id))
                #expect(item.state == .queued && item.attempts == 0)
                #expect(try await a.identificationRuns(last: 100).count == 2)
                // The photo B now also uses stays A's too: visible to both.
                #expect(try await a.photo(sha256: seed.photos[0].sha256) != nil)
            }
            try await HouseholdScope.$current.withValue(bob) { () async throws in
                #expect(try await b.photo(sha256: seed.photos[0].sha256) != nil)
                #expect(try await b.identificationRuns(last: 100).count == 1)
                #expect(try await b.exemplarsVersion(model: Self.model) != versionA)
            }
        }
    }

    /// The store's default scope acts when the task sets none (the command line): household 1, or the one chosen.
    @Test(arguments: StateBackend.allCases)
    func theDefaultScopeIsHouseholdOneAndATaskScopeOverridesIt(_ backend: StateBackend) async throws {
        try await backend.withTestStores(1) { stores in
            let store = stores[0].householdCollection
            let joneses = try await stores[0].householdAccounts.createHousehold(named: "Joneses", now: Self.now)
            let home = try await store.addPlant(NewPlant(name: "Home fern"), profile: .fixture(), photo: nil, now: Self.now)
            let theirs = try await HouseholdScope.$current.withValue(HouseholdScope(household: joneses.id, userName: "bob")) {
                try await store.addPlant(NewPlant(name: "Their fern"), profile: .fixture(), photo: nil, now: Self.now)
            }
            #expect(try await store.plants(room: nil).map(\.id) == [home.id])
            let scopedStore: any CollectionStore = switch stores[0] {
            case .sqlite(let database): database.scoped(to: HouseholdScope(household: joneses.id))
            case .postgres(let postgres): postgres.scoped(to: HouseholdScope(household: joneses.id))
            }
            #expect(try await scopedStore.plants(room: nil).map(\.id) == [theirs.id])
            #expect(try await scopedStore.plant(id: home.id) == nil)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aStoreWithoutAHouseholdFailsClosed(_ backend: StateBackend) async throws {
        try await backend.withTestStores(1) { stores in
            let scoped = stores[0].householdCollection
            let plant = try await scoped.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: Self.now)
            let unscoped = stores[0].requiringScope.householdCollection
            func expectNoHousehold<T>(_ what: String, _ body: () async throws -> T) async {
                do {
                    _ = try await body()
                    Issue.record("\(what) ran without a household")
                } catch {
                    guard case .noHousehold? = error as? StoreError else {
                        Issue.record("\(what): expected noHousehold, got \(error)")
                        return
                    }
                }
            }
            await expectNoHousehold("plants") { try await unscoped.plants(room: nil) }
            await expectNoHousehold("plant") { try await unscoped.plant(id: plant.id) }
            await expectNoHousehold("careStates") { try await unscoped.careStates(plantId: nil, room: nil) }
            await expectNoHousehold("export") { try await unscoped.exportSnapshot(now: Self.now, generator: "test") }
            await expectNoHousehold("addPlant") {
                try await unscoped.addPlant(NewPlant(name: "Ghost"), profile: .fixture(), photo: nil, now: Self.now)
            }
            await expectNoHousehold("logCare") {
                try await unscoped.logCare(plantId: plant.id, task: .water, day: day("2026-11-24"), note: nil, now: Self.now)
            }
            await expectNoHousehold("fileIdentification") {
                try await unscoped.fileIdentification(
                    Self.plantNetAnswer("Ficus", 0.5, at: Self.now), photo: storedPhoto(9, at: Self.now), plantId: nil, newPlant: nil,
                    chosenSpecies: nil, recheck: nil, now: Self.now
                )
            }
            await expectNoHousehold("photo(originalSHA256:)") {
                try await unscoped.photo(originalSHA256: storedPhoto(9, at: Self.now).originalSHA256)
            }
            await expectNoHousehold("recordIdentificationRun") {
                try await unscoped.recordIdentificationRun(Self.run(Self.now, .onDevice), now: Self.now, retention: .standard)
            }
            // Nothing was written.
            #expect(try await scoped.plants(room: nil).map(\.name) == ["Fern"])
            #expect(try await scoped.events(plantId: nil).isEmpty)
            #expect(try await scoped.identifications(plantId: nil).isEmpty)
            #expect(try await scoped.identificationRuns(last: 10).isEmpty)
            #expect(try await scoped.photo(originalSHA256: storedPhoto(9, at: Self.now).originalSHA256) == nil)
            // With a task scope the same store works.
            let listed = try await HouseholdScope.$current.withValue(.home) { try await unscoped.plants(room: nil) }
            #expect(listed.map(\.id) == [plant.id])
        }
    }

    @Test(arguments: StateBackend.allCases)
    func householdsOwnTheirAccounts(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let first = stores[0].householdAccounts, second = stores[1].householdAccounts
            let hash = "pbkdf2-sha256$600000$c2FsdA$aGFzaA"
            #expect(try await first.households().map(\.name) == ["Home"])
            let joneses = try await first.createHousehold(named: "Joneses", now: Self.now)
            #expect(joneses.name == "Joneses" && joneses.id != 1)
            #expect(try await second.households().map(\.name) == ["Home", "Joneses"])
            #expect(try await second.household(named: "JONESES")?.id == joneses.id)
            #expect(try await second.household(named: "Smiths") == nil)
            do {
                _ = try await second.createHousehold(named: "joneses", now: Self.now)
                Issue.record("a taken name was accepted")
            } catch {
                #expect("\(error)".contains("exists already"))
            }
            for bad in ["", " Joneses", String(repeating: "x", count: 81), "Tab\there"] {
                await #expect(throws: StoreError.self) { try await first.createHousehold(named: bad, now: Self.now) }
            }
            // The first account of each household is its owner, whatever role was asked for.
            let ann = try await first.addUser(name: "ann", role: .member, passwordHash: hash, householdId: 1, now: Self.now)
            let bob = try await second.addUser(name: "bob", role: .member, passwordHash: hash, householdId: joneses.id, now: Self.now)
            let cat = try await first.addUser(name: "cat", role: .member, passwordHash: hash, householdId: joneses.id, now: Self.now)
            #expect(ann.role == .owner && ann.householdId == 1)
            #expect(bob.role == .owner && bob.householdId == joneses.id)
            #expect(cat.role == .member && cat.householdId == joneses.id)
            do {
                _ = try await first.addUser(name: "dan", role: .member, passwordHash: hash, householdId: 999, now: Self.now)
                Issue.record("an unknown household was accepted")
            } catch {
                guard case .householdNotFound("999")? = error as? StoreError else {
                    Issue.record("expected householdNotFound, got \(error)")
                    return
                }
            }
            await #expect(throws: StoreError.self) {
                try await second.addUser(name: "BOB", role: .member, passwordHash: hash, householdId: 1, now: Self.now)
            }
            #expect(try await second.users(household: joneses.id).map(\.name) == ["bob", "cat"])
            #expect(try await second.users(household: 1).map(\.name) == ["ann"])
            #expect(try await second.users(household: 999).isEmpty)
            // Each household keeps its last owner.
            do {
                try await first.removeUser(named: "bob")
                Issue.record("the Joneses' last owner was removed")
            } catch {
                guard case .lastOwner? = error as? StoreError else {
                    Issue.record("expected lastOwner, got \(error)")
                    return
                }
            }
            // Scoped to a household, as an owner's page is, another household's account is not found and stays as it was:
            // the store checks the household in the transaction that makes the change.
            func isNotFound(_ error: any Error) -> Bool {
                guard case .userNotFound("cat")? = error as? StoreError else { return false }
                return true
            }
            await #expect { try await first.removeUser(named: "cat", inHousehold: 1) } throws: { isNotFound($0) }
            await #expect {
                try await first.setPassword(user: "cat", inHousehold: 1, passwordHash: hash + "2", now: Self.now)
            } throws: { isNotFound($0) }
            #expect(try await second.user(named: "cat")?.passwordHash == hash)
            try await first.setPassword(user: "CAT", inHousehold: joneses.id, passwordHash: hash + "2", now: Self.now)
            #expect(try await second.user(named: "cat")?.passwordHash == hash + "2")
            try await second.removeUser(named: "cat", inHousehold: joneses.id)
            #expect(try await first.user(named: "cat") == nil)
            await #expect(throws: StoreError.self) { try await first.removeUser(named: "ann") }
            #expect(try await first.userCount() == 2)
        }
    }

    /// Two replicas making the same household, and adding the first accounts of a new household at once: one household,
    /// exactly one owner.
    @Test(arguments: StateBackend.allCases)
    func racingReplicasMakeOneHouseholdWithOneFirstOwner(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let now = Self.now
            async let first = try? stores[0].householdAccounts.createHousehold(named: "Smiths", now: now)
            async let second = try? stores[1].householdAccounts.createHousehold(named: "smiths", now: now)
            let made = [await first, await second].compactMap { $0 }
            #expect(made.count == 1)
            let smiths = try #require(made.first)
            let hash = "pbkdf2-sha256$600000$c2FsdA$aGFzaA"
            let added = try await withThrowingTaskGroup(of: UserAccount.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await stores[index % 2].householdAccounts.addUser(
                            name: "smith\(index)", role: .member, passwordHash: hash, householdId: smiths.id, now: now
                        )
                    }
                }
                var accounts: [UserAccount] = []
                for try await account in group { accounts.append(account) }
                return accounts
            }
            #expect(added.count == 10)
            #expect(added.filter { $0.role == .owner }.count == 1)
            let stored = try await stores[0].householdAccounts.users(household: smiths.id)
            #expect(stored.count == 10 && stored.filter { $0.role == .owner }.count == 1)
            // Either spelling may have won the race; there is one household of that name.
            #expect(try await stores[1].householdAccounts.households().map(\.name) == ["Home", smiths.name])
            #expect(["Smiths", "smiths"].contains(smiths.name))
        }
    }

    /// The schema refuses a plant or identification without a household and an identification filed under another
    /// household's plant, whatever SQL writes it.
    @Test(arguments: StateBackend.allCases)
    func theSchemaRefusesRowsWithoutOrAcrossHouseholds(_ backend: StateBackend) async throws {
        try await backend.withTestStores(1) { stores in
            let store = stores[0]
            let plant = try await store.householdCollection.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: Self.now)
            let joneses = try await store.householdAccounts.createHousehold(named: "Joneses", now: Self.now)
            let stamp = "2026-11-24 08:30:00.000"
            let uuid = "00000000-0000-0000-0000-0000000000f1"
            let bad = [
                "INSERT INTO plant (uuid, name, createdAt, updatedAt) VALUES ('\(uuid)', 'Ghost', '\(stamp)', '\(stamp)')",
                "UPDATE plant SET householdId = NULL WHERE id = \(plant.id)",
                """
                INSERT INTO identification (uuid, plantId, source, predictions, uncertain, identifiedAt)
                VALUES ('\(uuid)', NULL, 'onDevice', '[]', \(backend == .sqlite ? "0" : "FALSE"), '\(stamp)')
                """,
                """
                INSERT INTO identification (uuid, householdId, plantId, source, predictions, uncertain, identifiedAt)
                VALUES ('\(uuid)', \(joneses.id), \(plant.id), 'onDevice', '[]', \(backend == .sqlite ? "0" : "FALSE"), '\(stamp)')
                """,
                """
                INSERT INTO identificationRun (ranAt, strategy, source, cacheHit, apiCalled, timings)
                VALUES ('\(stamp)', 'hybrid', 'onDevice', \(backend == .sqlite ? "0, 0" : "FALSE, FALSE"), '{}')
                """,
            ]
            for sql in bad {
                await #expect(throws: (any Error).self, "\(sql)") { try await store.executeRaw(sql) }
            }
            #expect(try await store.householdCollection.plants(room: nil).map(\.id) == [plant.id])
            #expect(try await store.householdCollection.identifications(plantId: nil).isEmpty)
            // The same rows with the right household go in (so the refusals above were about the household).
            let flag = backend == .sqlite ? "0" : "FALSE"
            try await store.executeRaw("""
                INSERT INTO identification (uuid, householdId, plantId, source, predictions, uncertain, identifiedAt)
                VALUES ('\(uuid)', 1, \(plant.id), 'onDevice', '[]', \(flag), '\(stamp)')
                """)
            try await store.executeRaw("""
                INSERT INTO identificationRun (householdId, ranAt, strategy, source, cacheHit, apiCalled, timings)
                VALUES (1, '\(stamp)', 'hybrid', 'onDevice', \(flag), \(flag), '{}')
                """)
            #expect(try await store.householdCollection.identifications(plantId: plant.id).map(\.uuid) == [uuid])
            #expect(try await store.householdCollection.identificationRuns(last: 10).count == 1)
        }
    }

    /// A collection of the version before households (v14), with rows, upgrades into household 1.
    @Test func upgradingPutsEveryRowInHouseholdOne() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try Schema.migrator.migrate(queue, upTo: "v14")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO plant (uuid, name, room, createdAt, updatedAt)
                    VALUES ('00000000-0000-0000-0000-000000000001', 'Fern', 'Hall', '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000'),
                           ('00000000-0000-0000-0000-000000000002', 'Cactus', NULL, '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000');
                    INSERT INTO careEvent (uuid, plantId, task, day, createdAt)
                    VALUES ('00000000-0000-0000-0000-00000000000a', 1, 'water', '2026-01-05', '2026-01-05 09:00:00.000');
                    INSERT INTO identification (uuid, plantId, source, predictions, uncertain, identifiedAt)
                    VALUES ('00000000-0000-0000-0000-0000000000b1', 1, 'onDevice', '[]', 0, '2026-01-03 10:00:00.000'),
                           ('00000000-0000-0000-0000-0000000000b2', NULL, 'onDevice', '[]', 1, '2026-01-04 10:00:00.000');
                    INSERT INTO identificationRun (ranAt, strategy, source, cacheHit, apiCalled, timings)
                    VALUES ('2026-01-04 10:00:00.000', 'hybrid', 'onDevice', 0, 0, '{}');
                    """)
            }
            try queue.close()
        }
        let database = try home.open()
        #expect(try database.appliedMigrations().last == "v26")
        let households = try await database.writer.read { db in
            [
                try Int64.fetchAll(db, sql: "SELECT DISTINCT householdId FROM plant"),
                try Int64.fetchAll(db, sql: "SELECT DISTINCT householdId FROM identification"),
                try Int64.fetchAll(db, sql: "SELECT DISTINCT householdId FROM identificationRun"),
            ]
        }
        #expect(households == [[1], [1], [1]])
        #expect(try database.plants().map(\.name) == ["Fern", "Cactus"])
        #expect(try database.identifications().count == 2)
        #expect(try database.events().map(\.recordedBy) == [nil])
        #expect(try database.identificationRuns(last: 10).count == 1)
        let joneses = try database.createHousehold(named: "Joneses", now: Self.now)
        try HouseholdScope.$current.withValue(HouseholdScope(household: joneses.id)) { () throws in
            #expect(try database.plants().isEmpty)
            #expect(try database.identifications().isEmpty)
        }
        // The plant list and a room's list still search an index that leads with the household.
        let plans = try await database.writer.read { db in
            [
                try Row.fetchAll(db, sql: """
                    EXPLAIN QUERY PLAN SELECT id FROM plant WHERE householdId = 1
                    ORDER BY room IS NULL, room COLLATE NOCASE, name COLLATE NOCASE, id
                    """).map { $0["detail"] as String }.joined(separator: " "),
                try Row.fetchAll(db, sql: """
                    EXPLAIN QUERY PLAN SELECT id FROM plant WHERE householdId = 1 AND (room IS NULL) = 0 AND room = 'hall' COLLATE NOCASE
                    ORDER BY name COLLATE NOCASE, id
                    """).map { $0["detail"] as String }.joined(separator: " "),
            ]
        }
        for plan in plans {
            #expect(plan.contains("plant_listOrder"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }
}
