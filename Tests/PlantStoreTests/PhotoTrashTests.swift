import Foundation
import PlantGuideCore
import PlantStorePostgres
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// Where a photo's file lies in the library (``PhotoLibrary/url(of:)`` gives the trashed copy when it is not there).
func placedFile(_ library: PhotoLibrary, _ photo: StoredPhoto) -> URL {
    library.root.appendingPathComponent(String(photo.sha256.prefix(2)), isDirectory: true)
        .appendingPathComponent("\(photo.sha256).\(PhotoLibrary.fileExtension(for: photo.mediaType))")
}

/// The names in the trash that are copies of this photo's file (`<name>~<milliseconds>`).
func trashedCopies(_ library: PhotoLibrary, _ photo: StoredPhoto) -> [String] {
    let name = placedFile(library, photo).lastPathComponent
    return ((try? FileManager.default.contentsOfDirectory(atPath: library.trash.path)) ?? []).filter { $0.hasPrefix(name + "~") }
}

/// The photo trash: a released photo's files wait an hour before they are deleted, so a writer that found the same photo
/// stored just before (a thread, or another server replica on the shared data directory) never loses its file.
@Suite struct PhotoTrashTests {
    /// A fake encoder that keeps the bytes and makes a thumbnail of its own.
    private static let encoder = PhotoEncoder { data in
        EncodedPhoto(data: data, mediaType: "image/png", width: 40, height: 30, thumbnail: Data([0xFF, 0xD8, 0xFF]) + data)
    }

    @Test func aPhotoStoredAgainWhileItsLastUserRemovesItKeepsItsFiles() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let clock = TestClock("2026-06-01T10:00:00Z")
        let collection = try PlantCollection.open(in: home.directory, encoder: Self.encoder, lookup: { _ in nil }) { clock.now }
        let database = try collection.database
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 7, 7, 7])
        let fern = try await collection.addPlant(name: "Fern")
        let photo = try await collection.addPhoto(bytes, toPlant: fern.id)

        // Writer B finds the photo stored, with its file complete, and goes on to record its own use of it…
        let known = try database.photo(originalSHA256: sha256Hex(bytes))
        let found = try collection.photos.store(bytes, originalSHA256: sha256Hex(bytes), known: known, now: clock.now)
        #expect(found == photo)
        // …while A removes the photo's last user: the record goes, and the files move to the trash.
        try await collection.removePlant(id: fern.id)
        #expect(try database.photo(sha256: photo.sha256) == nil)
        #expect(!FileManager.default.fileExists(atPath: placedFile(collection.photos, photo).path))
        let trashed = try FileManager.default.contentsOfDirectory(atPath: collection.photos.trash.path).sorted()
        #expect(trashed.count == 2, "the photo and its thumbnail: \(trashed)")
        // B records its use: the photo's record is back, and emptying the trash puts its files back in place.
        let ivy = try await collection.addPlant(name: "Ivy")
        try database.attachPhoto(found, toPlant: ivy.id, now: clock.now)
        clock.advance(days: 1)
        let emptied = await collection.emptyPhotoTrash()
        #expect(emptied.deleted == 0 && emptied.restored == 2)
        #expect(try Data(contentsOf: placedFile(collection.photos, photo)) == bytes)
        let thumbnail = try #require(collection.photos.thumbnailURL(of: photo))
        #expect(try Data(contentsOf: thumbnail) == Data([0xFF, 0xD8, 0xFF]) + bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: collection.photos.trash.path).isEmpty)
    }

    @Test func aPhotoWhoseFileWaitsInTheTrashIsReadFromThereWithoutMovingIt() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let clock = TestClock("2026-06-01T10:00:00Z")
        let collection = try PlantCollection.open(in: home.directory, encoder: Self.encoder, lookup: { _ in nil }) { clock.now }
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 8])
        let fern = try await collection.addPlant(name: "Fern")
        let photo = try await collection.addPhoto(bytes, toPlant: fern.id)
        collection.photos.removeFiles(of: [photo], now: clock.now)
        #expect(!FileManager.default.fileExists(atPath: placedFile(collection.photos, photo).path))
        // The record still names it (another writer's use): the photo and its thumbnail are served from the trash,
        // which only emptying the trash (after asking the store) changes.
        #expect(try Data(contentsOf: collection.photos.url(of: photo)) == bytes)
        #expect(try Data(contentsOf: try #require(collection.photos.thumbnailURL(of: photo))) == Data([0xFF, 0xD8, 0xFF]) + bytes)
        #expect(!FileManager.default.fileExists(atPath: placedFile(collection.photos, photo).path))
        // Storing the same original again finds it complete instead of encoding it again.
        let refusing = PhotoLibrary(directory: home.directory, encoder: PhotoEncoder { _ in
            throw StoreError.photo("encoded again")
        })
        #expect(try refusing.store(bytes, originalSHA256: sha256Hex(bytes), known: photo, now: clock.now) == photo)
        // An hour on, the store still names it: it is put back in place.
        clock.advance(seconds: PhotoLibrary.trashAge)
        #expect(await collection.emptyPhotoTrash() == (deleted: 0, restored: 2))
        #expect(try Data(contentsOf: placedFile(collection.photos, photo)) == bytes)
    }

    @Test func aPhotoStoredAgainAfterItsRemovalLeavesNoCopyInTheTrash() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let clock = TestClock("2026-06-01T10:00:00Z")
        let collection = try PlantCollection.open(in: home.directory, encoder: Self.encoder, lookup: { _ in nil }) { clock.now }
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 9])
        let fern = try await collection.addPlant(name: "Fern")
        let photo = try await collection.addPhoto(bytes, toPlant: fern.id)
        try await collection.removePlant(id: fern.id)
        #expect(trashedCopies(collection.photos, photo).count == 1)
        // The same photo uploaded again: its record is gone, so it is encoded and written in place anew.
        let ivy = try await collection.addPlant(name: "Ivy")
        let again = try await collection.addPhoto(bytes, toPlant: ivy.id)
        #expect(again.sha256 == photo.sha256)
        #expect(FileManager.default.fileExists(atPath: placedFile(collection.photos, photo).path))
        // An hour on, the trashed copies are redundant: deleted, the files in place kept.
        clock.advance(seconds: PhotoLibrary.trashAge)
        #expect(await collection.emptyPhotoTrash() == (deleted: 2, restored: 0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: collection.photos.trash.path).isEmpty)
        #expect(try Data(contentsOf: placedFile(collection.photos, photo)) == bytes)
    }

    @Test func releasingAPhotoUsedFromTheTrashDatesItsCopiesAgain() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let clock = TestClock("2026-06-01T10:00:00Z")
        let collection = try PlantCollection.open(in: home.directory, encoder: Self.encoder, lookup: { _ in nil }) { clock.now }
        let database = try collection.database
        let fern = try await collection.addPlant(name: "Fern")
        let photo = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 10]), toPlant: fern.id)
        // Released, and used again from the trash by another writer before any sweep put it back…
        collection.photos.removeFiles(of: [photo], now: clock.now)
        let ivy = try await collection.addPlant(name: "Ivy")
        try database.attachPhoto(photo, toPlant: ivy.id, now: clock.now)
        try await collection.removePlant(id: fern.id)
        // …then released again 59 minutes later: its copies wait a whole hour from this release.
        clock.advance(seconds: 59 * 60)
        try await collection.removePlant(id: ivy.id)
        clock.advance(seconds: 2 * 60)
        #expect(await collection.emptyPhotoTrash() == (deleted: 0, restored: 0))
        #expect(trashedCopies(collection.photos, photo).count == 1)
        clock.advance(seconds: 59 * 60)
        #expect(await collection.emptyPhotoTrash() == (deleted: 2, restored: 0))
    }

    @Test func theTrashKeepsFilesAnHourThenDeletesThoseNoPhotoNames() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let clock = TestClock("2026-06-01T10:00:00Z")
        let collection = try PlantCollection.open(in: home.directory, encoder: Self.encoder, lookup: { _ in nil }) { clock.now }
        let fern = try await collection.addPlant(name: "Fern")
        let ivy = try await collection.addPlant(name: "Ivy")
        let released = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 1]), toPlant: fern.id)
        let kept = try await collection.addPhoto(Data([0x89, 0x50, 0x4E, 0x47, 2]), toPlant: ivy.id)
        try await collection.removePhoto(released.sha256, fromPlant: fern.id)
        // A stray file that names no photo at all, and a name that is not a photo's, are left alone.
        try Data([1]).write(to: collection.photos.trash.appendingPathComponent("notes.txt"))

        // Within the hour nothing is deleted.
        clock.advance(seconds: 3_599)
        #expect(await collection.emptyPhotoTrash() == (deleted: 0, restored: 0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: collection.photos.trash.path).count == 3)
        // After it, the released photo's file and thumbnail go; the other photo's files never moved.
        clock.advance(seconds: 2)
        #expect(await collection.emptyPhotoTrash() == (deleted: 2, restored: 0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: collection.photos.trash.path) == ["notes.txt"])
        #expect(FileManager.default.fileExists(atPath: placedFile(collection.photos, kept).path))
    }

    @Test(arguments: StateBackend.allCases)
    func photoFilesInUseNamesPhotosAndThumbnailsOfEveryHousehold(_ backend: StateBackend) async throws {
        try await backend.withTestStores(1) { stores in
            let store = stores[0].plants
            let now = Date(timeIntervalSince1970: 1_780_000_000)
            var photo = storedPhoto(1, at: now)
            photo.thumbnailSHA256 = String(format: "%064x", 0xC001)
            let plant = try await HouseholdScope.$current.withValue(.home) {
                try await store.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: photo, now: now)
            }
            let unknown = String(format: "%064x", 0xD001)
            // Asked for another household, and without any: photo files are shared by content.
            for scope in [HouseholdScope(household: 2), nil] {
                let used = try await HouseholdScope.$current.withValue(scope) {
                    try await store.photoFilesInUse([photo.sha256, try #require(photo.thumbnailSHA256), unknown])
                }
                #expect(used == [photo.sha256, photo.thumbnailSHA256])
            }
            #expect(try await store.photoFilesInUse([]).isEmpty)
            _ = try await HouseholdScope.$current.withValue(.home) { try await store.removePlant(id: plant.id) }
            #expect(try await store.photoFilesInUse([photo.sha256, try #require(photo.thumbnailSHA256)]).isEmpty)
        }
    }
}
