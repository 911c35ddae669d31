import Foundation
import GRDB
import PlantGuideCore
import PlantGuideTestSupport
import PlantStorePostgres
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// A diagnosis with two candidates (one the disease list lacks), answered at a whole millisecond.
func sampleDiagnosis(at date: Date) -> Diagnosis {
    Diagnosis(
        source: .plantNetAPI, model: "2025-03-10 (diseases 1.2)",
        candidates: [
            DiseaseCandidate(
                rank: 1, eppoCode: "BOTRCI", name: "Grey mould", inDiseaseList: true, score: 0.62,
                referenceImages: [ReferenceImage(author: "A. Pathologist", license: "cc-by-sa", url: "https://bs.plantnet.org/image/o/1")]
            ),
            DiseaseCandidate(rank: 2, eppoCode: "ZZSTUB", name: nil, inDiseaseList: false, score: 0.05),
        ],
        language: "en", milliseconds: 812.5, date: date
    )
}

/// Health records (diagnoses kept in a plant's history) through ``HistoryStore``, on every backend: the same records,
/// their photos kept in use, refused input, and one household's records invisible to another.
@Suite struct SharedHealthRecordStoreTests {
    /// 2026-11-29 08:00:00.125 UTC.
    private let now = Date(timeIntervalSince1970: 1_795_939_200.125)

    @Test(arguments: StateBackend.allCases)
    func aKeptDiagnosisComesBackWithItsPhotosInOrderNewestFirst(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let scope = HouseholdScope(household: 1, userName: "alice")
            try await HouseholdScope.$current.withValue(scope) {
                let fern = try await stores[0].plants.addPlant(
                    NewPlant(name: "Fern"), profile: .fixture(), photo: storedPhoto(1, at: now), now: now
                )
                let first = try await stores[0].history.saveHealthRecord(
                    NewHealthRecord(
                        diagnosis: sampleDiagnosis(at: now), photos: [(storedPhoto(2, at: now), "leaf"), (storedPhoto(1, at: now), "auto")],
                        note: "  brown spots on two leaves  "
                    ),
                    plantId: fern.id, now: now
                )
                #expect(first.note == "brown spots on two leaves")
                #expect(first.recordedBy == "alice")
                #expect(first.photos.map(\.organ) == ["leaf", "auto"])
                let second = try await stores[0].history.saveHealthRecord(
                    NewHealthRecord(diagnosis: Diagnosis(
                        source: .plantNetAPI, model: "m", candidates: [], language: "fr", date: now.addingTimeInterval(60)
                    ), photos: [(storedPhoto(3, at: now), "bark")], note: "   "),
                    plantId: fern.id, now: now.addingTimeInterval(60)
                )
                #expect(second.note == nil)
                #expect(second.summary == "Diagnosis: no disease found")
                #expect(first.summary == "Diagnosis: Grey mould (BOTRCI) 62 %")
                // Read through another connection: every field as kept, newest first, in the plant's details too.
                let read = try await stores[1].history.healthRecords(plantId: fern.id)
                #expect(read == [second, first])
                #expect(read.last?.diagnosis == sampleDiagnosis(at: now))
                #expect(read.last?.photos.map(\.sha256) == [storedPhoto(2, at: now).sha256, storedPhoto(1, at: now).sha256])
                let details = try await stores[1].plants.details(ofPlant: fern.id)
                #expect(details.healthRecords == [second, first])
                // The record's photos are the household's photos: the photo address shows them.
                #expect(try await stores[1].plants.photo(sha256: storedPhoto(2, at: now).sha256) != nil)
            }
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aRecordKeepsItsPhotosInUseUntilItsPlantGoes(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let store = stores[0]
            let fern = try await store.plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: storedPhoto(1, at: now), now: now)
            try await store.history.saveHealthRecord(
                NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(storedPhoto(1, at: now), "leaf"), (storedPhoto(2, at: now), "leaf")]),
                plantId: fern.id, now: now
            )
            // Taken off the plant's gallery, the photo is still the record's: no orphan, its files stay.
            let detached = try await store.plants.detachPhoto(storedPhoto(1, at: now).sha256, fromPlant: fern.id, now: now)
            #expect(detached == nil)
            #expect(try await store.plants.photoFilesInUse([storedPhoto(1, at: now).sha256]).count == 1)
            // The plant goes with its records: both photos are orphans now.
            let orphans = try await store.plants.removePlant(id: fern.id)
            #expect(orphans.map(\.sha256).sorted() == [storedPhoto(1, at: now).sha256, storedPhoto(2, at: now).sha256].sorted())
            #expect(try await store.plants.photo(sha256: storedPhoto(2, at: now).sha256) == nil)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func removingARecordFreesOnlyThePhotosNothingElseUses(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let store = stores[0]
            let fern = try await store.plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: storedPhoto(1, at: now), now: now)
            let record = try await store.history.saveHealthRecord(
                NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(storedPhoto(1, at: now), "leaf"), (storedPhoto(2, at: now), "leaf")]),
                plantId: fern.id, now: now
            )
            #expect(try await store.history.removeHealthRecord(id: record.id + 100, ofPlant: fern.id) == nil)
            await expectPlantNotFound(9_999) { try await store.history.removeHealthRecord(id: record.id, ofPlant: 9_999) }
            // Photo 1 is still the plant's; photo 2 was only the record's.
            let orphans = try await store.history.removeHealthRecord(id: record.id, ofPlant: fern.id)
            #expect(orphans?.map(\.sha256) == [storedPhoto(2, at: now).sha256])
            #expect(try await store.history.healthRecords(plantId: fern.id).isEmpty)
            #expect(try await store.plants.photo(sha256: storedPhoto(1, at: now).sha256) != nil)
            #expect(try await store.history.removeHealthRecord(id: record.id, ofPlant: fern.id) == nil, "removed once")
        }
    }

    @Test(arguments: StateBackend.allCases)
    func badRecordsAndOtherHouseholdsAreRefused(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let store = stores[0]
            let fern = try await store.plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            let photo = storedPhoto(5, at: now)
            let refused: [(String, NewHealthRecord)] = [
                ("no photo", NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [])),
                ("six photos", NewHealthRecord(
                    diagnosis: sampleDiagnosis(at: now), photos: (1...6).map { (storedPhoto($0, at: now), "leaf") }
                )),
                ("habit", NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(photo, "habit")])),
                ("long note", NewHealthRecord(
                    diagnosis: sampleDiagnosis(at: now), photos: [(photo, "leaf")], note: String(repeating: "é", count: 2_001)
                )),
            ]
            for (what, record) in refused {
                await #expect(throws: StoreError.self, "\(what)") {
                    try await store.history.saveHealthRecord(record, plantId: fern.id, now: now)
                }
            }
            await expectPlantNotFound(9_999) {
                try await store.history.saveHealthRecord(
                    NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(photo, "leaf")]), plantId: 9_999, now: now
                )
            }
            #expect(try await store.history.healthRecords(plantId: fern.id).isEmpty)
            #expect(try await store.plants.photo(sha256: photo.sha256) == nil, "a refused record records no photo")

            try await store.history.saveHealthRecord(
                NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(photo, "leaf")]), plantId: fern.id, now: now
            )
            let joneses = try await store.householdAccounts.createHousehold(named: "Joneses", now: now)
            try await HouseholdScope.$current.withValue(HouseholdScope(household: joneses.id, userName: "bob")) { () async throws in
                await expectPlantNotFound(fern.id) { try await store.history.healthRecords(plantId: fern.id) }
                await expectPlantNotFound(fern.id) {
                    try await store.history.saveHealthRecord(
                        NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(photo, "leaf")]), plantId: fern.id, now: now
                    )
                }
                #expect(try await store.plants.photo(sha256: photo.sha256) == nil, "another household's record photo")
            }
            #expect(try await store.history.healthRecords(plantId: fern.id).count == 1)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aRecordKeptForLaterWaitsIsClaimedOnceAndTakesItsAnswer(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let fern = try await stores[0].plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            let kept = try await stores[0].history.saveHealthRecord(
                NewHealthRecord(waitingIn: "fr", photos: [(storedPhoto(1, at: now), "leaf")], note: "spots"),
                plantId: fern.id, now: now
            )
            #expect(kept.diagnosis == nil)
            #expect(kept.isWaiting)
            #expect(kept.waiting == HealthRecordWait(language: "fr"))
            #expect(kept.summary == "Diagnosis: waiting for Pl@ntNet")
            let older = try await stores[0].history.saveHealthRecord(
                NewHealthRecord(waitingIn: "en", photos: [(storedPhoto(2, at: now), "auto")]), plantId: fern.id,
                now: now.addingTimeInterval(-60)
            )
            try await stores[0].history.saveHealthRecord(
                NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(storedPhoto(3, at: now), "leaf")]), plantId: fern.id, now: now
            )
            // Read through another connection: only the two without an answer wait, the older first.
            #expect(try await stores[1].history.waitingHealthRecords().map(\.id) == [older.id, kept.id])
            #expect(try await stores[1].history.waitingHealthRecordCount() == 2)
            #expect(try await stores[1].history.healthRecords(plantId: fern.id).filter(\.isWaiting).count == 2)

            // One claim at a time: a live process holding it keeps it; the holder itself may claim again.
            let living = ProcessIdentity.current
            #expect(try await stores[0].history.claimHealthRecord(kept.id, now: now, lease: 300, claimant: living))
            #expect(try await stores[1].history.claimHealthRecord(kept.id, now: now, lease: 300, claimant: "other-host:1:1") == false)
            // Given back, the try is not counted and anyone may claim it.
            try await stores[0].history.releaseHealthRecord(kept.id)
            #expect(try await stores[1].history.claimHealthRecord(kept.id, now: now, lease: 300, claimant: "other-host:1:1"))
            #expect(try await stores[0].history.failHealthRecord(kept.id, reason: "HTTP 503", giveUp: false, now: now) == false)
            let failed = try #require(try await stores[1].history.waitingHealthRecords().first { $0.id == kept.id })
            #expect(failed.waiting?.attempts == 1)
            #expect(failed.waiting?.lastError == "HTTP 503")

            // The answer fills the record in once; the record no longer waits, and a second answer writes nothing.
            #expect(try await stores[0].history.claimHealthRecord(kept.id, now: now, lease: 300, claimant: living))
            let answered = try #require(try await stores[0].history.completeHealthRecord(kept.id, diagnosis: sampleDiagnosis(at: now)))
            #expect(answered.diagnosis == sampleDiagnosis(at: now))
            #expect(answered.waiting == nil)
            #expect(answered.note == "spots")
            #expect(answered.summary == "Diagnosis: Grey mould (BOTRCI) 62 %")
            #expect(try await stores[1].history.completeHealthRecord(kept.id, diagnosis: sampleDiagnosis(at: now)) == nil)
            #expect(try await stores[1].history.failHealthRecord(kept.id, reason: "late", giveUp: false, now: now) == nil)
            #expect(try await stores[1].history.waitingHealthRecords().map(\.id) == [older.id])
            #expect(try await stores[1].history.waitingHealthRecordCount() == 1)

            // Tries run out: after the fifth failure the record gives up, keeps its photos and says why.
            for attempt in 1...HealthRecord.maximumAttempts {
                #expect(try await stores[0].history.claimHealthRecord(older.id, now: now, lease: 300, claimant: living))
                let gaveUp = try await stores[0].history.failHealthRecord(older.id, reason: "timed out", giveUp: false, now: now)
                #expect(gaveUp == (attempt == HealthRecord.maximumAttempts), "attempt \(attempt)")
            }
            #expect(try await stores[1].history.waitingHealthRecords().isEmpty)
            #expect(try await stores[1].history.waitingHealthRecordCount() == 0)
            let givenUp = try #require(try await stores[1].history.healthRecords(plantId: fern.id).first { $0.id == older.id })
            #expect(givenUp.isWaiting == false)
            #expect(givenUp.waiting?.gaveUpAt == now.roundedToMilliseconds)
            #expect(givenUp.summary == "Diagnosis: not made (timed out)")
            #expect(givenUp.photos.count == 1)
            #expect(try await stores[1].history.claimHealthRecord(older.id, now: now, lease: 300, claimant: living) == false)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aRecordWithoutAnswerOrLanguageIsRefused(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let store = stores[0]
            let fern = try await store.plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            for language in ["", "e n", String(repeating: "x", count: 17), "fr;DROP"] {
                await #expect(throws: StoreError.self, "language “\(language)”") {
                    try await store.history.saveHealthRecord(
                        NewHealthRecord(waitingIn: language, photos: [(storedPhoto(1, at: now), "leaf")]), plantId: fern.id, now: now
                    )
                }
            }
            #expect(try await store.history.healthRecords(plantId: fern.id).isEmpty)
            // Another household neither sees nor claims a waiting record.
            let kept = try await store.history.saveHealthRecord(
                NewHealthRecord(waitingIn: "en", photos: [(storedPhoto(1, at: now), "leaf")]), plantId: fern.id, now: now
            )
            let joneses = try await store.householdAccounts.createHousehold(named: "Joneses", now: now)
            try await HouseholdScope.$current.withValue(HouseholdScope(household: joneses.id, userName: "bob")) { () async throws in
                #expect(try await store.history.waitingHealthRecords().isEmpty)
                #expect(try await store.history.waitingHealthRecordCount() == 0)
                #expect(try await store.history.claimHealthRecord(kept.id, now: now, lease: 300, claimant: ProcessIdentity.current) == false)
                #expect(try await store.history.completeHealthRecord(kept.id, diagnosis: sampleDiagnosis(at: now)) == nil)
            }
            #expect(try await store.history.waitingHealthRecords().map(\.id) == [kept.id])
            #expect(try await store.history.waitingHealthRecordCount() == 1)
        }
    }

    /// A collection from v24 keeps its health records through v25 (the table made again): their photos' rows, the id
    /// counter, and a diagnosis for each; new records may then wait.
    @Test func upgradingToV25KeepsEveryRecordAndItsPhotos() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let sha = String(repeating: "a", count: 64)
        let diagnosis = try DiagnosisColumn.encode(sampleDiagnosis(at: now))
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try Schema.migrator.migrate(queue, upTo: "v24")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO plant (uuid, name, createdAt, updatedAt, householdId)
                    VALUES ('00000000-0000-0000-0000-000000000001', 'Fern', '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000', 1);
                    INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt)
                    VALUES ('\(sha)', '\(sha)', 'image/jpeg', 10, '2026-01-02 10:00:00.000');
                    INSERT INTO healthRecord (id, uuid, plantId, diagnosis, note, recordedBy, recordedAt)
                    VALUES (7, '00000000-0000-0000-0000-0000000000c1', 1, ?, 'spots', 'alice', '2026-01-03 10:00:00.000');
                    INSERT INTO healthRecordPhoto (recordId, position, photoSHA256, organ) VALUES (7, 0, '\(sha)', 'leaf');
                    """, arguments: [diagnosis])
            }
            try queue.close()
        }
        let database = try home.open()
        #expect(try database.appliedMigrations().last == "v26")
        let records = try database.healthRecords(plantId: 1)
        #expect(records.map(\.id) == [7])
        #expect(records.first?.diagnosis == sampleDiagnosis(at: now))
        #expect(records.first?.photos == [HealthRecordPhoto(sha256: sha, organ: "leaf")])
        #expect(records.first?.note == "spots" && records.first?.recordedBy == "alice")
        #expect(try database.integrityCheck() == ["ok"])
        let waiting = try database.saveHealthRecord(
            NewHealthRecord(waitingIn: "en", photos: [(storedPhoto(1, at: now), "leaf")]), plantId: 1, now: now
        )
        #expect(waiting.id == 8, "the id counter carried over")
        #expect(try database.waitingHealthRecords().map(\.id) == [8])
    }
}
