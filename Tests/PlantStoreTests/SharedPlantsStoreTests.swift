import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres
import Testing

extension TestStore {
    /// Plants and photos.
    var plants: any PlantsStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }

    /// ``HistoryStore/fileIdentification(_:photo:plantId:newPlant:chosenSpecies:recheck:now:)`` on either backend (the
    /// PostgreSQL store has the identification history before the rest of ``HistoryStore``).
    func fileIdentification(
        _ identification: Identification, photo: StoredPhoto? = nil, plantId: Int64? = nil,
        newPlant: (plant: NewPlant, profile: CareProfile)? = nil, chosenSpecies: String? = nil, recheck: RecheckRequest? = nil,
        now: Date
    ) async throws -> FiledIdentification {
        switch self {
        case .sqlite(let database):
            try database.fileIdentification(
                identification, photo: photo, plantId: plantId, newPlant: newPlant, chosenSpecies: chosenSpecies, recheck: recheck,
                now: now
            )
        case .postgres(let store):
            try await store.fileIdentification(
                identification, photo: photo, plantId: plantId, newPlant: newPlant, chosenSpecies: chosenSpecies, recheck: recheck,
                now: now
            )
        }
    }

    /// ``HistoryStore/identifications(plantId:)`` on either backend.
    func identifications(plantId: Int64? = nil) async throws -> [FiledIdentification] {
        switch self {
        case .sqlite(let database): try database.identifications(plantId: plantId)
        case .postgres(let store): try await store.identifications(plantId: plantId)
        }
    }
}

/// Expects `body` to fail with ``StoreError/plantNotFound(_:)`` for `id`.
func expectPlantNotFound<T>(
    _ id: Int64, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected plant #\(id) not to be found", sourceLocation: sourceLocation)
    } catch {
        guard case .plantNotFound(let missing)? = error as? StoreError, missing == id else {
            Issue.record("expected plant #\(id) not to be found, got \(error)", sourceLocation: sourceLocation)
            return
        }
    }
}

/// A stored photo's record with made-up content addresses (the store never reads the files).
func storedPhoto(_ number: Int, at date: Date) -> StoredPhoto {
    StoredPhoto(
        sha256: String(format: "%064x", 0xA000 + number), originalSHA256: String(format: "%064x", 0xB000 + number),
        mediaType: "image/jpeg", byteCount: 1000 + number, width: 40, height: 30, thumbnailSHA256: nil, createdAt: date
    )
}

/// An identification as a device or Pl@ntNet answers it.
func sampleIdentification(_ species: String, at date: Date) -> Identification {
    Identification(
        source: .plantNetAPI, model: "2025-01-17 (7.3)",
        predictions: [
            SpeciesPrediction(rank: 1, scientificName: species, authorship: "L.", commonNames: ["one", "two"], confidence: 0.81, gbifId: "42"),
            SpeciesPrediction(rank: 2, scientificName: "Epipremnum aureum", confidence: 0.04),
        ],
        uncertain: false, timings: ["request": 812.123_456_7, "unknown stage": 1], date: date
    )
}

/// Plants and their photos through ``PlantsStore``, on every backend: the same records, order, errors and photo
/// bookkeeping.
@Suite struct SharedPlantsStoreTests {
    /// 2026-11-24 00:00:00.123 UTC, with a fraction below the millisecond the stores round away.
    private let now = Date(timeIntervalSince1970: 1_795_478_400.123_4)

    @Test(arguments: StateBackend.allCases)
    func plantsAreListedByRoomThenNameIgnoringCaseWithoutARoomLast(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let store = stores[0].plants
            let entries: [(String, String?)] = [
                ("beta", "Kitchen"), ("Zeta", nil), ("alpha", "kitchen"), ("Beta", "KITCHEN"), ("_under", "Attic"),
                ("10 pots", nil), ("9 pots", nil), ("Aloe", "bathroom"), ("aloe", nil),
            ]
            var ids: [String: Int64] = [:]
            for (name, room) in entries {
                let plant = try await store.addPlant(NewPlant(name: name, room: room), profile: .fixture(), photo: nil, now: now)
                ids["\(name)/\(room ?? "-")"] = plant.id
                #expect(plant.createdAt == now.roundedToMilliseconds)
                #expect(plant.updatedAt == plant.createdAt)
            }
            // Rooms A–Z in any case, no room last; names in any case; equal names by id.
            let listed = try await stores[1].plants.plants(room: nil)
            #expect(listed.map { "\($0.name)/\($0.room ?? "-")" } == [
                "_under/Attic", "Aloe/bathroom", "alpha/kitchen", "beta/Kitchen", "Beta/KITCHEN", "10 pots/-", "9 pots/-",
                "aloe/-", "Zeta/-",
            ])
            #expect(listed.map(\.id) == listed.map { ids["\($0.name)/\($0.room ?? "-")"] ?? 0 })
            #expect(try await stores[1].plants.plants(room: "kitCHEN").map(\.name) == ["alpha", "beta", "Beta"])
            #expect(try await stores[1].plants.plants(room: "Cellar").isEmpty)
            #expect(try await stores[1].plants.plantCount() == entries.count)
            // One plant, read back as it was returned.
            let added = try await store.addPlant(
                NewPlant(name: "  Monstera  ", species: "Monstera deliciosa", nickname: " ", room: "Hall", acquiredOn: day("2024-05-01"), notes: "big"),
                profile: .fixture(), photo: nil, now: now
            )
            #expect(added.name == "Monstera" && added.nickname == nil && added.acquiredOn == day("2024-05-01"))
            #expect(try await stores[1].plants.plant(id: added.id) == added)
            #expect(try await stores[1].plants.plant(id: 9999) == nil)
            await #expect(throws: StoreError.self) {
                try await store.addPlant(NewPlant(name: "  "), profile: .fixture(), photo: nil, now: now)
            }
            await #expect(throws: StoreError.self) {
                try await store.addPlant(NewPlant(name: String(repeating: "x", count: 10_000)), profile: .fixture(), photo: nil, now: now)
            }
            #expect(try await store.plantCount() == entries.count + 1)
            // What the schema refuses is refused alike: a care profile out of range, a confirmed species left blank.
            for (plant, profile) in [
                (NewPlant(name: "Dry"), CareProfile.fixture(water: 0)),
                (NewPlant(name: "Odd", confirmation: SpeciesConfirmation(species: " ", source: .name)), CareProfile.fixture()),
            ] {
                let error = await #expect(throws: StoreError.self) {
                    try await store.addPlant(plant, profile: profile, photo: nil, now: now)
                }
                guard case .invalid? = error else {
                    Issue.record("expected an invalid-input error, got \(String(describing: error))")
                    continue
                }
            }
            #expect(try await store.plantCount() == entries.count + 1)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func duplicatesAreSkippedIgnoringCaseAndSeedsComeWithPhotoAndCare(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let store = stores[0].plants
            try await store.addPlant(NewPlant(name: "Fern", species: "Nephrolepis", room: "Hall"), profile: .fixture(), photo: nil, now: now)
            let result = try await store.addPlantsSkippingDuplicates([
                (NewPlant(name: "fern", species: "NEPHROLEPIS", room: "hall"), .fixture()),   // the same plant
                (NewPlant(name: "Fern", species: "Nephrolepis"), .fixture()),                  // no room: another one
                (NewPlant(name: "FERN", species: "nephrolepis", room: " "), .fixture()),       // blank room: the one above
                (NewPlant(name: "Fern", nickname: "Fred", room: "Hall"), .fixture()),          // no species, a nickname
                (NewPlant(name: "Ivy", confirmation: SpeciesConfirmation(species: "Hedera helix", source: .name)), .fixture(water: 3)),
            ], now: now)
            #expect(result.skipped == 2)
            #expect(result.added.map(\.name) == ["Fern", "Fern", "Ivy"])
            #expect(result.added.map(\.room) == [nil, "Hall", nil])
            #expect(try await store.plantCount() == 4)
            let ivy = try await store.details(ofPlant: result.added[2].id)
            #expect(ivy.profile == .fixture(water: 3))
            // A blank name anywhere refuses the whole list.
            await #expect(throws: StoreError.self) {
                try await store.addPlantsSkippingDuplicates([(NewPlant(name: "Palm"), .fixture()), (NewPlant(name: " "), .fixture())], now: now)
            }
            #expect(try await store.plantCount() == 4)
            // Seeds bring their photo and past care, all or nothing.
            let photo = storedPhoto(1, at: now)
            let seeded = try await store.addPlants([
                PlantSeed(plant: NewPlant(name: "Palm", room: "Hall"), profile: .fixture(), photo: photo,
                          events: [(.water, day("2026-11-01"), "rain"), (.fertilize, day("2026-10-01"), nil)]),
                PlantSeed(plant: NewPlant(name: "Cactus"), profile: .fixture(water: 21)),
            ], now: now)
            #expect(seeded.map(\.name) == ["Palm", "Cactus"])
            let palm = try await store.details(ofPlant: seeded[0].id)
            #expect(palm.photos == [photo].map { var photo = $0; photo.createdAt = now.roundedToMilliseconds; return photo })
            #expect(palm.events.map(\.task) == [.water, .fertilize])
            #expect(palm.events.map(\.note) == ["rain", nil])
            await #expect(throws: StoreError.self) {
                try await store.addPlants([PlantSeed(plant: NewPlant(name: "Lily"), profile: .fixture()),
                                           PlantSeed(plant: NewPlant(name: ""), profile: .fixture())], now: now)
            }
            #expect(try await store.plantCount() == 6)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aSharedPhotoIsReleasedOnlyWhenItsLastUseGoes(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let store = stores[0].plants, other = stores[1].plants
            let shared = storedPhoto(1, at: now), own = storedPhoto(2, at: now), history = storedPhoto(3, at: now)
            let queued = storedPhoto(4, at: now)
            let fern = try await store.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: shared, now: now)
            let ivy = try await store.addPlant(NewPlant(name: "Ivy"), profile: .fixture(), photo: nil, now: now)
            try await other.attachPhoto(shared, toPlant: ivy.id, now: now)
            try await other.attachPhoto(shared, toPlant: ivy.id, now: now)  // again: nothing changes
            try await store.attachPhoto(own, toPlant: fern.id, now: now)
            try await store.attachPhoto(history, toPlant: ivy.id, now: now)
            try await store.attachPhoto(queued, toPlant: ivy.id, now: now)
            // An identification keeps its photo; so does a re-check waiting to send one.
            _ = try await stores[0].fileIdentification(sampleIdentification("Hedera helix", at: now), photo: history, now: now)
            _ = try await stores[0].fileIdentification(
                sampleIdentification("Hedera helix", at: now), recheck: RecheckRequest(reason: .offline, photos: [(queued, "leaf")]),
                now: now
            )
            #expect(try await other.allPhotos().map(\.sha256) == [shared, own, history, queued].map(\.sha256))
            // Fern goes: its own photo goes with it, the shared one stays for Ivy.
            let released = try await other.removePlant(id: fern.id)
            #expect(released.map(\.sha256) == [own.sha256])
            #expect(released.first?.createdAt == now.roundedToMilliseconds)
            #expect(try await store.photo(sha256: own.sha256) == nil)
            #expect(try await store.photo(sha256: shared.sha256)?.byteCount == shared.byteCount)
            #expect(try await store.photo(originalSHA256: shared.originalSHA256)?.sha256 == shared.sha256)
            // Ivy's photos: the shared one is released by the last link; the others stay for the history and the queue.
            #expect(try await other.detachPhoto(history.sha256, fromPlant: ivy.id, now: now) == nil)
            #expect(try await other.detachPhoto(queued.sha256, fromPlant: ivy.id, now: now) == nil)
            let last = try await other.detachPhoto(shared.sha256, fromPlant: ivy.id, now: now)
            #expect(last?.sha256 == shared.sha256)
            #expect(try await store.allPhotos().map(\.sha256) == [history, queued].map(\.sha256))
            // Errors: no such link, no such plant.
            await #expect(throws: StoreError.self) { try await other.detachPhoto(shared.sha256, fromPlant: ivy.id, now: now) }
            await expectPlantNotFound(fern.id) { try await other.removePlant(id: fern.id) }
            await expectPlantNotFound(fern.id) { try await other.attachPhoto(own, toPlant: fern.id, now: now) }
            // Removing a plant with photos used elsewhere releases nothing.
            try await store.attachPhoto(history, toPlant: ivy.id, now: now)
            #expect(try await store.removePlant(id: ivy.id).isEmpty)
            #expect(try await store.allPhotos().count == 2)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func theCoverIsTheChosenPhotoElseTheNewest(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let store = stores[0].plants, other = stores[1].plants
            let first = storedPhoto(1, at: now), second = storedPhoto(2, at: now), third = storedPhoto(3, at: now)
            let fern = try await store.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: first, now: now)
            let ivy = try await store.addPlant(NewPlant(name: "Ivy"), profile: .fixture(), photo: third, now: now)
            #expect(try await store.coverPhoto(ofPlant: fern.id) == first.sha256)
            let later = now.addingTimeInterval(86_400)
            try await store.attachPhoto(second, toPlant: fern.id, now: later)
            try await store.attachPhoto(third, toPlant: fern.id, now: later)  // same time: the larger SHA-256 counts as newer
            #expect(try await other.plant(id: fern.id)?.updatedAt == later.roundedToMilliseconds)
            var photos = try await other.photos(ofPlant: fern.id)
            #expect(photos.map(\.photo.sha256) == [first, second, third].map(\.sha256))
            #expect(photos.map(\.addedAt) == [now, later, later].map(\.roundedToMilliseconds))
            #expect(photos.map(\.isCover) == [false, false, true])
            try await other.setCoverPhoto(first.sha256, ofPlant: fern.id, now: later)
            photos = try await store.photos(ofPlant: fern.id)
            #expect(photos.map(\.isCover) == [true, false, false])
            #expect(try await store.coverPhoto(ofPlant: fern.id) == first.sha256)
            try await store.setCoverPhoto(second.sha256, ofPlant: fern.id, now: later)
            #expect(try await other.coverPhoto(ofPlant: fern.id) == second.sha256)
            // Only a plant's own photo; only an existing plant.
            await #expect(throws: StoreError.self) { try await store.setCoverPhoto(first.sha256, ofPlant: ivy.id, now: later) }
            await expectPlantNotFound(404) { try await store.setCoverPhoto(first.sha256, ofPlant: 404, now: later) }
            await expectPlantNotFound(404) { try await store.photos(ofPlant: 404) }
            #expect(try await store.coverPhoto(ofPlant: 404) == nil)
            // The chosen cover removed: the newest takes over; no photo, no cover.
            #expect(try await store.detachPhoto(second.sha256, fromPlant: fern.id, now: later)?.sha256 == second.sha256)
            #expect(try await store.coverPhoto(ofPlant: fern.id) == third.sha256)
            _ = try await store.detachPhoto(third.sha256, fromPlant: fern.id, now: later)
            _ = try await store.detachPhoto(first.sha256, fromPlant: fern.id, now: later)
            #expect(try await store.coverPhoto(ofPlant: fern.id) == nil)
            #expect(try await store.photos(ofPlant: fern.id).isEmpty)
            #expect(try await store.coverPhoto(ofPlant: ivy.id) == third.sha256)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func anUpdateKeepsThePlantsIdentityAndChecksItsFields(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            var plant = try await stores[0].plants.addPlant(NewPlant(name: "Fern", room: "Hall"), profile: .fixture(), photo: nil, now: now)
            let original = plant
            plant.room = "Bathroom"
            plant.acquiredOn = day("2025-02-03")
            plant.uuid = "00000000-0000-0000-0000-00000000beef"
            plant.createdAt = now.addingTimeInterval(-1000)
            let updated = try await stores[1].plants.updatePlant(plant, now: now.addingTimeInterval(60))
            #expect(updated.uuid == original.uuid && updated.createdAt == original.createdAt)
            #expect(updated.updatedAt == now.addingTimeInterval(60).roundedToMilliseconds)
            #expect(try await stores[0].plants.plant(id: plant.id) == updated)
            // An update dated before the plant was created is dated when it was created.
            #expect(try await stores[0].plants.updatePlant(updated, now: now.addingTimeInterval(-60)).updatedAt == original.createdAt)
            plant.id = 999
            await expectPlantNotFound(999) { try await stores[0].plants.updatePlant(plant, now: now) }
            plant.id = original.id
            plant.name = " "
            await #expect(throws: StoreError.self) { try await stores[0].plants.updatePlant(plant, now: now) }
            plant.name = "Fern"
            plant.notes = String(repeating: "n", count: InputLimits.noteCharacters + 1)
            await #expect(throws: StoreError.self) { try await stores[0].plants.updatePlant(plant, now: now) }
            #expect(try await stores[1].plants.plant(id: plant.id)?.room == "Bathroom")
        }
    }

    @Test(arguments: StateBackend.allCases)
    func identificationsAreFiledUnderANewPlantAnExistingOneOrNone(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let photo = storedPhoto(1, at: now), loosePhoto = storedPhoto(2, at: now)
            let answer = sampleIdentification("Monstera deliciosa", at: now.addingTimeInterval(-5))
            // A new plant: created with its profile and confirmation, the photo attached.
            let created = try await stores[0].fileIdentification(
                answer, photo: photo,
                newPlant: (NewPlant(name: "Monstera deliciosa", species: "Monstera deliciosa",
                                    confirmation: SpeciesConfirmation(species: "Monstera deliciosa", source: .identification)), .fixture()),
                now: now
            )
            let plantId = try #require(created.plantId)
            #expect(created.chosenSpecies == "Monstera deliciosa")
            #expect(created.photoSHA256 == photo.sha256)
            #expect(created.identification.date == answer.date.roundedToMilliseconds)
            #expect(created.identification.timings == ["request": 812.123])
            #expect(try await stores[1].plants.photos(ofPlant: plantId).map(\.photo.sha256) == [photo.sha256])
            #expect(try await stores[1].plants.plant(id: plantId)?.createdAt == now.roundedToMilliseconds)
            // An existing plant, with the owner's choice.
            let later = sampleIdentification("Philodendron", at: now.addingTimeInterval(10))
            let filed = try await stores[1].fileIdentification(later, plantId: plantId, chosenSpecies: " Rhaphidophora ", now: now)
            #expect(filed.plantId == plantId && filed.chosenSpecies == "Rhaphidophora" && filed.photoSHA256 == nil)
            // None: the photo is recorded, not attached.
            let loose = try await stores[0].fileIdentification(answer, photo: loosePhoto, now: now)
            #expect(loose.plantId == nil)
            #expect(try await stores[1].plants.photo(sha256: loosePhoto.sha256) != nil)
            // Read back exactly as returned, newest first, all or one plant's.
            #expect(try await stores[1].identifications() == [filed, loose, created])
            #expect(try await stores[1].identifications(plantId: plantId) == [filed, created])
            #expect(try await stores[0].plants.details(ofPlant: plantId).identifications == [filed, created])
            // Refused, and nothing written: an unknown plant, both targets, a nameless plant, a re-check without photos.
            await expectPlantNotFound(404) { try await stores[0].fileIdentification(answer, plantId: 404, now: now) }
            await #expect(throws: StoreError.self) {
                try await stores[0].fileIdentification(answer, plantId: plantId, newPlant: (NewPlant(name: "X"), .fixture()), now: now)
            }
            await #expect(throws: StoreError.self) {
                try await stores[0].fileIdentification(answer, photo: storedPhoto(9, at: now), newPlant: (NewPlant(name: " "), .fixture()), now: now)
            }
            await #expect(throws: StoreError.self) {
                try await stores[0].fileIdentification(answer, recheck: RecheckRequest(reason: .quota, photos: []), now: now)
            }
            #expect(try await stores[1].identifications().count == 3)
            #expect(try await stores[1].plants.plantCount() == 1)
            #expect(try await stores[1].plants.photo(sha256: storedPhoto(9, at: now).sha256) == nil)
            // Removing the plant keeps its history, unfiled, and the photos the history uses.
            #expect(try await stores[1].plants.removePlant(id: plantId).isEmpty)
            #expect(try await stores[0].identifications().allSatisfy { $0.plantId == nil })
            #expect(try await stores[0].plants.allPhotos().count == 2)
        }
    }

    @Test func detailsAreTheSameOnBothBackends() async throws {
        let now = now
        let scenario: @Sendable (TestStore) async throws -> PlantDetails = { store in
            let plants = store.plants
            let fern = try await plants.addPlant(
                NewPlant(name: "Fern", species: "Nephrolepis exaltata", nickname: "Fred", room: "Hall", acquiredOn: day("2025-01-02"), notes: "n"),
                profile: .fixture(fertilize: nil), photo: storedPhoto(2, at: now), now: now
            )
            try await plants.attachPhoto(storedPhoto(1, at: now), toPlant: fern.id, now: now.addingTimeInterval(30))
            let care = store.care
            try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-20"), note: "rain", now: now)
            try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-22"), note: nil, now: now)
            try await care.logCare(plantId: fern.id, task: .mist, day: day("2026-11-22"), note: " ", now: now)
            try await care.updateScheduleSettings(plantId: fern.id, task: .water) { $0.growingDays = 5 }
            try await care.updateScheduleSettings(plantId: fern.id, task: .fertilize) { $0.paused = true }
            try await care.updateScheduleSettings(plantId: fern.id, task: .mist) { $0.snoozedUntil = CalendarDay(dayNumber: 20_500) }
            _ = try await store.fileIdentification(sampleIdentification("Nephrolepis exaltata", at: now), photo: storedPhoto(1, at: now),
                                                   plantId: fern.id, now: now)
            _ = try await store.fileIdentification(sampleIdentification("Nephrolepis cordifolia", at: now), plantId: fern.id, now: now)
            await expectPlantNotFound(fern.id + 1) { try await plants.details(ofPlant: fern.id + 1) }
            return try await plants.details(ofPlant: fern.id)
        }
        let sqlite = try await StateBackend.sqlite.withTestStores(1) { try await scenario($0[0]) }
        let postgres = try await StateBackend.postgres.withTestStores(1) { try await scenario($0[0]) }
        #expect(postgres.plant.uuid != sqlite.plant.uuid)  // made afresh by each store
        #expect(withoutUUIDs(postgres) == withoutUUIDs(sqlite))
        #expect(postgres.profile == .fixture(fertilize: nil))
        #expect(postgres.scheduleSettings.map(\.task) == sqlite.scheduleSettings.map(\.task))
        #expect(postgres.scheduleSettings == sqlite.scheduleSettings)
        #expect(postgres.photos == sqlite.photos)
        #expect(postgres.events.map(\.day) == [day("2026-11-22"), day("2026-11-22"), day("2026-11-20")])
        #expect(postgres.events.map(\.note) == sqlite.events.map(\.note))
        #expect(postgres.identifications.map(\.id) == [2, 1])
        #expect(postgres.identifications.map(\.identification) == sqlite.identifications.map(\.identification))
    }

    @Test(arguments: StateBackend.allCases)
    func twoReplicasChoosingCoversAndMovingPhotosAtOnceLeaveOneCoverAndNoLostPhoto(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let photos = (1...4).map { storedPhoto($0, at: now) }
            let fern = try await stores[0].plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            let ivy = try await stores[0].plants.addPlant(NewPlant(name: "Ivy"), profile: .fixture(), photo: nil, now: now)
            for photo in photos { try await stores[0].plants.attachPhoto(photo, toPlant: fern.id, now: now) }
            // Both choose covers of one plant, over and over.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        for round in 0..<20 {
                            let photo = photos[(round + index) % photos.count]
                            try await store.plants.setCoverPhoto(photo.sha256, ofPlant: fern.id, now: now)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let covers = try await stores[1].plants.photos(ofPlant: fern.id).filter(\.isCover)
            #expect(covers.count == 1)
            #expect(try await stores[0].plants.coverPhoto(ofPlant: fern.id) == covers.first?.photo.sha256)
            // One takes a shared photo off a plant while the other links it to another one and back off: whatever the
            // order, the photo's record exists exactly while a link does, and no call fails.
            let shared = photos[0]
            for photo in photos.dropFirst() { _ = try await stores[0].plants.detachPhoto(photo.sha256, fromPlant: fern.id, now: now) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<15 {
                        _ = try await stores[0].plants.detachPhoto(shared.sha256, fromPlant: fern.id, now: now)
                        try await stores[0].plants.attachPhoto(shared, toPlant: fern.id, now: now)
                    }
                }
                group.addTask {
                    for _ in 0..<15 {
                        try await stores[1].plants.attachPhoto(shared, toPlant: ivy.id, now: now)
                        _ = try await stores[1].plants.detachPhoto(shared.sha256, fromPlant: ivy.id, now: now)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await stores[1].plants.photos(ofPlant: fern.id).map(\.photo.sha256) == [shared.sha256])
            #expect(try await stores[1].plants.photos(ofPlant: ivy.id).isEmpty)
            #expect(try await stores[1].plants.allPhotos().map(\.sha256) == [shared.sha256])
            // Both import the same list at once: it is added once.
            let list: [(NewPlant, CareProfile)] = (1...10).map { (NewPlant(name: "Palm \($0)", room: "Hall"), .fixture()) }
            let results = try await withThrowingTaskGroup(of: (added: Int, skipped: Int).self) { group in
                for store in stores {
                    group.addTask {
                        let result = try await store.plants.addPlantsSkippingDuplicates(list, now: now)
                        return (result.added.count, result.skipped)
                    }
                }
                var results: [(added: Int, skipped: Int)] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(results.map(\.added).reduce(0, +) == 10)
            #expect(results.map(\.skipped).reduce(0, +) == 10)
            #expect(try await stores[0].plants.plants(room: "hall").count == 10)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aPlantRemovedWhileAPhotoIsAttachedReleasesItOrRefusesTheAttachment(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            var attachedCount = 0
            for round in 0..<20 {
                let plant = try await stores[0].plants.addPlant(NewPlant(name: "Pot \(round)"), profile: .fixture(), photo: nil, now: now)
                let photo = storedPhoto(100 + round, at: now)
                // One replica removes the plant while the other attaches a photo to it (and files an identification under
                // it): either the attachment comes first and the removal releases the photo, or it finds no plant.
                async let removal = stores[0].plants.removePlant(id: plant.id)
                async let attachment: Bool = {
                    do {
                        try await stores[1].plants.attachPhoto(photo, toPlant: plant.id, now: now)
                        return true
                    } catch StoreError.plantNotFound {
                        return false
                    }
                }()
                async let filing: Int64?? = {
                    do {
                        return try await stores[1].fileIdentification(sampleIdentification("Pilea", at: now), plantId: plant.id, now: now).plantId
                    } catch StoreError.plantNotFound {
                        return nil
                    }
                }()
                let (released, attached, filed) = try await (removal, attachment, filing)
                #expect(released.map(\.sha256) == (attached ? [photo.sha256] : []), "round \(round)")
                if let filed { #expect(filed == plant.id) }
                if attached { attachedCount += 1 }
            }
            // Nothing is left behind: no photo record without a use, every filed identification unfiled.
            #expect(try await stores[1].plants.allPhotos().isEmpty)
            #expect(try await stores[1].plants.plantCount() == 0)
            #expect(try await stores[0].identifications().allSatisfy { $0.plantId == nil })
            print("\(backend): \(attachedCount) of 20 attachments came before the removal")
        }
    }
}

/// Details with every UUID (made afresh by each store) blanked, to compare two backends.
func withoutUUIDs(_ details: PlantDetails) -> PlantDetails {
    var details = details
    details.plant.uuid = ""
    details.events = details.events.map { var event = $0; event.uuid = ""; return event }
    details.identifications = details.identifications.map { var filed = $0; filed.uuid = ""; return filed }
    return details
}
