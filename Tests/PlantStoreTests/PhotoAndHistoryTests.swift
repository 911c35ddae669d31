import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

@Suite struct PhotoAndHistoryTests {
    @Test func photosAreStoredOnceByContentWithAThumbnail() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        // A fake encoder that "strips" by dropping the first metadata byte and makes a thumbnail.
        let encoder = PhotoEncoder { data in
            EncodedPhoto(data: Data([0xFF, 0xD8, 0xFF]) + data.dropFirst(4), mediaType: "image/jpeg", width: 40, height: 30,
                         thumbnail: Data([0xFF, 0xD8, 0xFF, 0x01]))
        }
        let library = PhotoLibrary(directory: home.directory, encoder: encoder)
        let original = Data([0xFF, 0xD8, 0xFF, 0xE1, 9, 9, 9, 9])
        let photo = try library.store(original, now: Date())
        #expect(photo.sha256 == sha256Hex(try Data(contentsOf: library.url(of: photo))))
        #expect(photo.originalSHA256 == sha256Hex(original))
        #expect(library.url(of: photo).path.hasSuffix("photos/\(photo.sha256.prefix(2))/\(photo.sha256).jpg"))
        let thumbnail = try #require(library.thumbnailURL(of: photo))
        #expect(FileManager.default.fileExists(atPath: thumbnail.path))
        let a = try database.addPlant(NewPlant(name: "A"), profile: .fixture(), photo: photo, now: Date())
        let again = try library.store(original, now: Date()) { sha throws(StoreError) in try database.photo(originalSHA256: sha) }
        #expect(again.sha256 == photo.sha256 && again.thumbnailSHA256 == photo.thumbnailSHA256)
        let b = try database.addPlant(NewPlant(name: "B"), profile: .fixture(), photo: again, now: Date())
        #expect(try database.allPhotos().count == 1)
        #expect(try database.photo(sha256: photo.sha256)?.originalSHA256 == photo.originalSHA256)
        #expect(try database.photo(sha256: String(repeating: "0", count: 64)) == nil)
        #expect(try database.details(ofPlant: a.id).photos.map(\.sha256) == [photo.sha256])
        #expect(try database.details(ofPlant: b.id).photos.map(\.sha256) == [photo.sha256])
        let files = try FileManager.default.subpathsOfDirectory(atPath: library.root.path).filter { $0.hasSuffix(".jpg") }
        #expect(files.count == 2)  // one photo, one thumbnail
        #expect(throws: StoreError.self) { try library.store(Data(), now: Date()) }
        let failing = PhotoLibrary(directory: home.directory, encoder: PhotoEncoder { _ in throw StoreError.photo("bad") })
        #expect(throws: StoreError.self) { try failing.store(Data([1, 2, 3]), now: Date()) }
    }

    @Test func aPlantsPhotosAreListedGivenACoverAndRemoved() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let clock = TestClock("2026-06-01T10:00:00Z")
        let collection = try PlantCollection.open(in: home.directory, encoder: .storingOriginal, lookup: { _ in nil }) { clock.now }
        let database = try collection.database
        let fern = try await collection.addPlant(name: "Fern")
        let ivy = try await collection.addPlant(name: "Ivy")
        let first = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 1]), toPlant: fern.id)
        clock.advance(days: 1)
        let second = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 2]), toPlant: fern.id)
        let shared = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 1]), toPlant: ivy.id)
        #expect(shared.sha256 == first.sha256)
        // Without a choice, the photo added last is the cover.
        #expect(try database.photos(ofPlant: fern.id).map(\.photo.sha256) == [first.sha256, second.sha256])
        #expect(try database.photos(ofPlant: fern.id).map(\.isCover) == [false, true])
        #expect(try database.coverPhoto(ofPlant: fern.id) == second.sha256)
        try database.setCoverPhoto(first.sha256, ofPlant: fern.id, now: clock.now)
        #expect(try database.photos(ofPlant: fern.id).map(\.isCover) == [true, false])
        #expect(try database.coverPhoto(ofPlant: fern.id) == first.sha256)
        // Only a plant's own photo can be its cover, and the schema allows one cover per plant.
        let ivyOnly = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 3]), toPlant: ivy.id)
        #expect(throws: StoreError.self) { try database.setCoverPhoto(ivyOnly.sha256, ofPlant: fern.id, now: clock.now) }
        #expect(throws: (any Error).self) {
            try database.writer.write { db in
                try db.execute(sql: "UPDATE plantPhoto SET isCover = 1 WHERE plantId = ?", arguments: [ivy.id])
            }
        }
        // Removing the cover: the photo added last takes over; the file Ivy still uses stays.
        try await collection.removePhoto(first.sha256, fromPlant: fern.id)
        #expect(try database.photos(ofPlant: fern.id).map(\.photo.sha256) == [second.sha256])
        #expect(try database.coverPhoto(ofPlant: fern.id) == second.sha256)
        #expect(FileManager.default.fileExists(atPath: collection.photos.url(of: first).path))
        // Removing a photo's last use deletes its record and moves its file to the trash.
        try await collection.removePhoto(second.sha256, fromPlant: fern.id)
        #expect(try database.photo(sha256: second.sha256) == nil)
        #expect(!FileManager.default.fileExists(atPath: placedFile(collection.photos, second).path))
        #expect(trashedCopies(collection.photos, second).count == 1)
        #expect(try database.coverPhoto(ofPlant: fern.id) == nil)
        await #expect(throws: StoreError.self) { try await collection.removePhoto(second.sha256, fromPlant: fern.id) }
        #expect(throws: StoreError.self) { try database.photos(ofPlant: 999) }
    }

    @Test func identificationsAreFiledWithTheirPhotoAndANewPlantInOneGo() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let library = PhotoLibrary(directory: home.directory, encoder: .storingOriginal)
        let photo = try library.store(Data([0x89, 0x50, 0x4E, 0x47, 1, 2]), now: Date())
        let identification = Identification(
            source: .plantNetAPI, model: "2025-01-17 (7.3)",
            predictions: [
                SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", authorship: "Liebm.", commonNames: ["Swiss cheese plant"], confidence: 0.91, gbifId: "2868241"),
                SpeciesPrediction(rank: 2, scientificName: "Epipremnum aureum", confidence: 0.04),
            ],
            uncertain: false, timings: ["request": 812], date: Date(timeIntervalSince1970: 1_790_000_000.123_4)
        )
        let filed = try database.fileIdentification(
            identification, photo: photo, newPlant: (NewPlant(name: "Monstera deliciosa", species: "Monstera deliciosa"), .fixture()),
            now: Date()
        )
        let plantId = try #require(filed.plantId)
        #expect(filed.chosenSpecies == "Monstera deliciosa")
        let details = try database.details(ofPlant: plantId)
        #expect(details.photos.map(\.sha256) == [photo.sha256])
        let stored = try #require(details.identifications.first)
        #expect(stored.identification.predictions == identification.predictions)
        #expect(stored.identification.model == "2025-01-17 (7.3)")
        #expect(stored.identification.source == .plantNetAPI)
        #expect(abs(stored.identification.date.timeIntervalSince(identification.date)) < 0.001)
        // Unfiled identifications and bad targets.
        let loose = try database.fileIdentification(identification, chosenSpecies: "Epipremnum aureum", now: Date())
        #expect(loose.plantId == nil)
        #expect(try database.identifications().count == 2)
        #expect(throws: StoreError.self) { try database.fileIdentification(identification, plantId: 404, now: Date()) }
        #expect(try database.identifications().count == 2)
        // Removing the plant keeps its history, unfiled.
        try database.removePlant(id: plantId)
        #expect(try database.identifications().allSatisfy { $0.plantId == nil })
        #expect(try database.allPhotos().count == 1)
    }
}
