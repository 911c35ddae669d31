import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing

extension TestStore {
    /// Export and import.
    var transfer: any TransferStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// Export and import through ``TransferStore`` on every backend. A collection exported from one backend, imported into
/// the other and exported again must give the same export: that is how a move from SQLite to PostgreSQL is verified.
@Suite struct SharedTransferStoreTests {
    /// 2026-11-24 08:30:00.250 UTC.
    private let now = Date(timeIntervalSince1970: 1_795_509_000.25)

    /// A collection with every kind of row an export holds: plants with and without rooms, profiles, species, photos
    /// (one shared by two plants), schedule settings, care events, and identifications filed under a plant, with a new
    /// plant, and unsaved.
    private func seed(_ store: TestStore) async throws {
        let plants = store.plants, care = store.care
        let shared = storedPhoto(1, at: now), second = storedPhoto(2, at: now), unsaved = storedPhoto(3, at: now)
        let fern = try await plants.addPlant(
            NewPlant(name: "Fern", species: "Nephrolepis exaltata", nickname: "Fronds", room: "Hall"), profile: .fixture(),
            photo: shared, now: now
        )
        let cactus = try await plants.addPlant(NewPlant(name: "Cactus"), profile: .fixture(water: 21, fertilize: nil), photo: nil, now: now)
        try await plants.attachPhoto(shared, toPlant: cactus.id, now: now.addingTimeInterval(60))
        try await plants.attachPhoto(second, toPlant: cactus.id, now: now.addingTimeInterval(120))
        try await care.updateScheduleSettings(plantId: cactus.id, task: .water) { $0.growingDays = 18; $0.snoozedUntil = day("2026-12-02") }
        try await care.updateScheduleSettings(plantId: fern.id, task: .fertilize) { $0.paused = true }
        try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-20"), note: "rain water", now: now)
        try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-23"), note: nil, now: now)
        try await care.logCare(plantId: cactus.id, task: .repot, day: day("2026-10-01"), note: "bigger pot", now: now)
        // A soil check and learned intervals travel too (a check must not come back as a watering).
        try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-27"), note: nil, soil: .wet, now: now)
        try await care.updateScheduleSettings(plantId: fern.id, task: .water) {
            $0.learnedGrowing = 1.5
            $0.learnedSince = day("2026-11-01")
            $0.conditions = PlantConditions(potCentimetres: 25, potMaterial: .terracotta, light: .directSun, nearHeater: true)
        }
        _ = try await store.fileIdentification(
            sampleIdentification("Nephrolepis exaltata", at: now), photo: shared, plantId: fern.id, chosenSpecies: "Nephrolepis exaltata",
            now: now
        )
        _ = try await store.fileIdentification(
            sampleIdentification("Monstera deliciosa", at: now.addingTimeInterval(5)), photo: second,
            newPlant: (NewPlant(name: "Monstera", species: "Monstera deliciosa", room: "Living room"), .fixture(water: 9)), now: now
        )
        _ = try await store.fileIdentification(sampleIdentification("Ficus lyrata", at: now.addingTimeInterval(9)), photo: unsaved, now: now)
        // A kept diagnosis: a photo of its own and one the plant's gallery has too.
        try await store.history.saveHealthRecord(
            NewHealthRecord(
                diagnosis: sampleDiagnosis(at: now), photos: [(storedPhoto(4, at: now), "leaf"), (shared, "auto")], note: "spots"
            ),
            plantId: fern.id, now: now
        )
        // One kept while Pl@ntNet could not be reached, tried once: it travels waiting, with its language and try.
        let waiting = try await store.history.saveHealthRecord(
            NewHealthRecord(waitingIn: "fr", photos: [(storedPhoto(5, at: now), "bark")]), plantId: cactus.id, now: now
        )
        #expect(try await store.history.claimHealthRecord(waiting.id, now: now, lease: 300, claimant: ProcessIdentity.current))
        try await store.history.failHealthRecord(waiting.id, reason: "HTTP 503", giveUp: false, now: now)
    }

    @Test(arguments: [(StateBackend.sqlite, StateBackend.postgres), (.postgres, .sqlite)])
    func anExportImportedIntoTheOtherBackendExportsTheSame(_ source: StateBackend, _ target: StateBackend) async throws {
        let now = now
        let exported = try await source.withTestStores(1) { stores in
            try await seed(stores[0])
            return try await stores[0].transfer.exportSnapshot(now: now, generator: "PlantGuide test")
        }
        #expect(exported.plants.count == 3)
        #expect(exported.photos.count == 5)
        #expect(exported.identifications.count == 3)
        let records = exported.plants.compactMap(\.healthRecords).flatMap { $0 }
        #expect(records.map(\.photos.count).sorted() == [1, 2])
        #expect(records.compactMap(\.waiting) == [HealthRecordWait(language: "fr", attempts: 1, lastError: "HTTP 503")])
        #expect(exported.plants.map(\.events.count).reduce(0, +) == 4)
        #expect(exported.plants.flatMap(\.events).filter { $0.soil == .wet }.count == 1)
        #expect(exported.plants.flatMap(\.schedules).contains {
            $0.learnedGrowing == 1.5 && $0.learnedSince == day("2026-11-01") && $0.conditions?.potCentimetres == 25
        })
        try await target.withTestStores(2) { stores in
            let summary = try await stores[0].transfer.importRows(exported)
            #expect(summary.plantsAdded == 3)
            #expect(summary.plantsAlreadyPresent == 0)
            #expect(summary.photosAdded == 5)
            #expect(summary.eventsAdded == 4)
            #expect(summary.identificationsAdded == 3)
            #expect(summary.healthRecordsAdded == 2)
            // The waiting record waits in the target too, for its queue.
            #expect(try await stores[1].history.waitingHealthRecords().map(\.waiting?.language) == ["fr"])
            // Read back through another connection: the same export, row for row and field for field.
            let again = try await stores[1].transfer.exportSnapshot(now: now, generator: "PlantGuide test")
            #expect(again == exported)
            if again != exported {
                for (mine, theirs) in zip(again.plants, exported.plants) where mine != theirs { Issue.record("\(mine)\n≠ \(theirs)") }
            }
            // The imported plants are whole plants of the target: their care states are there too.
            let states = try await stores[1].care.careStates(plantId: nil, room: nil)
            #expect(states.map(\.displayName).sorted() == ["Cactus", "Fronds", "Monstera"])
            #expect(states.first { $0.displayName == "Fronds" }?.lastDone[.water] == day("2026-11-23"))
        }
    }

    @Test(arguments: StateBackend.allCases)
    func importingTwiceAddsNothingTheSecondTime(_ backend: StateBackend) async throws {
        let now = now
        let exported = try await StateBackend.sqlite.withTestStores(1) { stores in
            try await seed(stores[0])
            return try await stores[0].transfer.exportSnapshot(now: now, generator: "PlantGuide test")
        }
        try await backend.withTestStores(1) { stores in
            _ = try await stores[0].transfer.importRows(exported)
            let second = try await stores[0].transfer.importRows(exported)
            #expect(second.plantsAdded == 0)
            #expect(second.plantsAlreadyPresent == 3)
            #expect(second.photosAdded == 0)
            #expect(second.eventsAdded == 0)
            #expect(second.identificationsAdded == 0)
            #expect(second.healthRecordsAdded == 0)
            #expect(try await stores[0].plants.plantCount() == 3)
            // A catalog species is taken as confirmed on import.
            #expect(try await stores[0].transfer.exportSnapshot(now: now, generator: "PlantGuide test") == exported)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aWaitingRecordWhosePhotosTheArchiveLacksComesInGivenUp(_ backend: StateBackend) async throws {
        let now = now
        var exported = try await StateBackend.sqlite.withTestStores(1) { stores in
            try await seed(stores[0])
            return try await stores[0].transfer.exportSnapshot(now: now, generator: "PlantGuide test")
        }
        let lost = storedPhoto(5, at: now).sha256
        exported.photos.removeAll { $0.sha256 == lost }
        try await backend.withTestStores(1) { stores in
            #expect(try await stores[0].transfer.importRows(exported).healthRecordsAdded == 2)
            #expect(try await stores[0].history.waitingHealthRecords().isEmpty)
            let cactus = try #require(try await stores[0].plants.plants(room: nil).first { $0.name == "Cactus" })
            let record = try #require(try await stores[0].history.healthRecords(plantId: cactus.id).first)
            #expect(record.photos.isEmpty)
            #expect(record.waiting?.gaveUpAt == exported.exportedAt.roundedToMilliseconds)
            #expect(record.summary == "Diagnosis: not made (its photos were not in the archive it came from)")
        }
        // A record with neither a diagnosis nor a language is a bad archive: nothing is imported.
        var bad = exported
        let plant = try #require(bad.plants.firstIndex { $0.name == "Cactus" })
        bad.plants[plant].healthRecords?[0].waiting = nil
        try await backend.withTestStores(1) { stores in
            await #expect(throws: StoreError.self) { try await stores[0].transfer.importRows(bad) }
            let count = try await stores[0].plants.plantCount()
            #expect(count == 0)
        }
    }
}
