import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing

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
}
