import Foundation
import PlantGuideCore
import PlantStore
import Testing

extension TestStore {
    /// Confirmed species and photo embeddings.
    var recognition: any RecognitionStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// Three plants and five photos, the same on every backend (ids 1–3): plant 1 "Monstera" (Monty, Hall; confirmed by
/// name) with photos 1, 2 and 3; plant 2 "Fern" with photo 3 (a photo of two plants); plant 3 without photos; photo 4
/// only in the history, not on a plant; photo 5 on plant 2. Written through the SQLite store's own methods, and with
/// plain SQL on PostgreSQL until its plants part lands.
enum RecognitionFixture {
    static let start = isoDate("2026-06-01T10:00:00Z")
    static func sha(_ digit: Int) -> String { String(repeating: String(digit), count: 64) }
    static func time(_ minutes: Int) -> Date { start.addingTimeInterval(Double(minutes) * 60) }

    static func photo(_ digit: Int) -> StoredPhoto {
        StoredPhoto(
            sha256: sha(digit), originalSHA256: sha(digit), mediaType: "image/jpeg", byteCount: 100 * digit, width: 640, height: 480,
            thumbnailSHA256: nil, createdAt: time(digit)
        )
    }

    static func seed(_ store: TestStore) async throws {
        switch store {
        case .sqlite(let database):
            let confirmation = SpeciesConfirmation(species: "Monstera deliciosa", source: .name)
            try database.addPlant(
                NewPlant(name: "Monstera", species: "Monstera deliciosa", nickname: "Monty", room: "Hall", confirmation: confirmation),
                profile: .fixture(), photo: photo(1), now: time(10)
            )
            try database.addPlant(NewPlant(name: "Fern", room: "Bath"), profile: .fixture(), photo: nil, now: time(11))
            try database.addPlant(NewPlant(name: "Cactus"), profile: .fixture(), photo: nil, now: time(12))
            try database.attachPhoto(photo(2), toPlant: 1, now: time(13))
            try database.attachPhoto(photo(3), toPlant: 2, now: time(14))
            try database.attachPhoto(photo(3), toPlant: 1, now: time(15))
            try database.attachPhoto(photo(5), toPlant: 2, now: time(16))
            try database.fileIdentification(
                Identification(source: .onDevice, predictions: [], uncertain: true, date: time(17)), photo: photo(4), now: time(17)
            )
        case .postgres(let store):
            func stamp(_ date: Date) -> String { "'\(ISO8601DateFormatter().string(from: date))'" }
            let photos = [1, 2, 3, 4, 5].map { digit in
                "('\(sha(digit))', '\(sha(digit))', 'image/jpeg', \(100 * digit), 640, 480, NULL, \(stamp(time(digit))))"
            }
            for statement in [
                """
                INSERT INTO plant (id, householdId, uuid, name, species, nickname, room, createdAt, updatedAt, confirmedSpecies,
                    confirmedBy, confirmedAt)
                VALUES (1, 1, '00000000-0000-0000-0000-000000000001', 'Monstera', 'Monstera deliciosa', 'Monty', 'Hall',
                        \(stamp(time(10))), \(stamp(time(10))), 'Monstera deliciosa', 'name', \(stamp(time(10)))),
                       (2, 1, '00000000-0000-0000-0000-000000000002', 'Fern', NULL, NULL, 'Bath', \(stamp(time(11))), \(stamp(time(11))),
                        NULL, NULL, NULL),
                       (3, 1, '00000000-0000-0000-0000-000000000003', 'Cactus', NULL, NULL, NULL, \(stamp(time(12))), \(stamp(time(12))),
                        NULL, NULL, NULL)
                """,
                """
                INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, width, height, thumbnailSHA256, createdAt)
                VALUES \(photos.joined(separator: ", "))
                """,
                """
                INSERT INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES
                    (1, '\(sha(1))', \(stamp(time(10)))), (1, '\(sha(2))', \(stamp(time(13)))), (2, '\(sha(3))', \(stamp(time(14)))),
                    (1, '\(sha(3))', \(stamp(time(15)))), (2, '\(sha(5))', \(stamp(time(16))))
                """,
                """
                INSERT INTO identification (householdId, uuid, plantId, photoSHA256, source, model, predictions, uncertain, identifiedAt)
                VALUES (1, '00000000-0000-0000-0000-0000000000a1', NULL, '\(sha(4))', 'onDevice', NULL, '[]', true, \(stamp(time(17))))
                """,
            ] {
                try await store.execute(statement, operation: "seed the recognition fixture")
            }
        }
    }
}

/// Confirmed species and photo embeddings through the store protocol, on every backend.
@Suite struct SharedRecognitionStoreTests {
    private let modelA = EmbeddingModel(name: "resnet18-index", checksum: String(repeating: "a", count: 64))
    private let modelB = EmbeddingModel(name: "resnet18-index", checksum: String(repeating: "b", count: 64))
    private let unversioned = EmbeddingModel(name: "resnet18-index")

    @Test(arguments: StateBackend.allCases)
    func confirmationsAreRecordedWithdrawnAndValidated(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            try await RecognitionFixture.seed(stores[0])
            let first = stores[0].recognition, second = stores[1].recognition
            #expect(try await second.confirmation(ofPlant: 1) == SpeciesConfirmation(
                species: "Monstera deliciosa", source: .name, confirmedAt: RecognitionFixture.time(10)
            ))
            #expect(try await second.confirmation(ofPlant: 2) == nil)
            await expectStoreError(StoreError.plantNotFound(999)) { _ = try await second.confirmation(ofPlant: 999) }

            let when = RecognitionFixture.time(30).addingTimeInterval(0.123_456)
            try await first.confirmSpecies(
                SpeciesConfirmation(species: "  Nephrolepis exaltata ", source: .identification), ofPlant: 2, now: when
            )
            #expect(try await second.confirmation(ofPlant: 2) == SpeciesConfirmation(
                species: "Nephrolepis exaltata", source: .identification, confirmedAt: when.roundedToMilliseconds
            ))
            await expectStoreError(StoreError.plantNotFound(999)) {
                try await first.confirmSpecies(SpeciesConfirmation(species: "Ficus", source: .name), ofPlant: 999, now: when)
            }
            await expectStoreError(StoreError.invalid("A confirmed species needs a name.")) {
                try await first.confirmSpecies(SpeciesConfirmation(species: "  ", source: .name), ofPlant: 2, now: when)
            }
            await #expect(throws: StoreError.self) {
                try await first.confirmSpecies(
                    SpeciesConfirmation(species: String(repeating: "x", count: 10_000), source: .name), ofPlant: 2, now: when
                )
            }
            // Withdrawing returns what was withdrawn, once.
            #expect(try await second.unconfirmSpecies(ofPlant: 2)?.species == "Nephrolepis exaltata")
            #expect(try await first.unconfirmSpecies(ofPlant: 2) == nil)
            #expect(try await first.confirmation(ofPlant: 2) == nil)
            await expectStoreError(StoreError.plantNotFound(999)) { try await first.unconfirmSpecies(ofPlant: 999) }
        }
    }

    @Test(arguments: StateBackend.allCases)
    func embeddingsRoundTripBitExactly(_ backend: StateBackend) async throws {
        let modelA = modelA, unversioned = unversioned
        try await backend.withTestStores(2) { stores in
            try await RecognitionFixture.seed(stores[0])
            let writer = stores[0].recognition, reader = stores[1].recognition
            var generator = SystemRandomNumberGenerator()
            // Values float16 holds exactly come back bit for bit.
            let exact = (0..<512).map { _ in Float(Float16(Float.random(in: -8...8, using: &generator))) }
            try await writer.setEmbedding(exact, model: modelA, forPhoto: RecognitionFixture.sha(1), now: RecognitionFixture.time(40))
            let stored = try #require(try await reader.embedding(ofPhoto: RecognitionFixture.sha(1)))
            #expect(stored.vector.map(\.bitPattern) == exact.map(\.bitPattern))
            #expect(stored.model == modelA)
            // Any other finite values come back as their float16 rounding, the same bits on every backend.
            let any = (0..<300).map { _ in Float.random(in: -70_000...70_000, using: &generator) } + [0, -0, 1e-9, 65_504]
            try await writer.setEmbedding(any, model: unversioned, forPhoto: RecognitionFixture.sha(2), now: RecognitionFixture.time(41))
            let rounded = try #require(try await reader.embedding(ofPhoto: RecognitionFixture.sha(2)))
            let expected = try #require(HalfPrecision.floats(from: HalfPrecision.bytes(of: any)))
            #expect(rounded.vector.map(\.bitPattern) == expected.map(\.bitPattern))
            #expect(rounded.model == unversioned && rounded.model.checksum == nil)
            // Replacing keeps one embedding per photo.
            try await reader.setEmbedding([1, 2, 3], model: modelA, forPhoto: RecognitionFixture.sha(2), now: RecognitionFixture.time(42))
            #expect(try await writer.embedding(ofPhoto: RecognitionFixture.sha(2))?.vector == [1, 2, 3])
            #expect(try await writer.embedding(ofPhoto: RecognitionFixture.sha(3)) == nil)

            await expectStoreError(StoreError.invalid("An embedding needs 1 to 65,536 finite numbers.")) {
                try await writer.setEmbedding([1, .nan], model: modelA, forPhoto: RecognitionFixture.sha(1), now: RecognitionFixture.time(43))
            }
            await #expect(throws: StoreError.self) {
                try await writer.setEmbedding([], model: modelA, forPhoto: RecognitionFixture.sha(1), now: RecognitionFixture.time(43))
            }
            await expectStoreError(StoreError.invalid("There is no photo 999999999999.")) {
                try await writer.setEmbedding([1], model: modelA, forPhoto: RecognitionFixture.sha(9), now: RecognitionFixture.time(43))
            }
            #expect(try await reader.embedding(ofPhoto: RecognitionFixture.sha(1))?.vector.map(\.bitPattern) == exact.map(\.bitPattern))
        }
    }

    @Test(arguments: StateBackend.allCases)
    func coverageExemplarsAndTheirVersion(_ backend: StateBackend) async throws {
        let modelA = modelA, modelB = modelB
        try await backend.withTestStores(2) { stores in
            try await RecognitionFixture.seed(stores[0])
            let first = stores[0].recognition, second = stores[1].recognition
            let sha = RecognitionFixture.sha, time = RecognitionFixture.time
            // Four photos are on plants (photo 4 is only in the history); none has an embedding yet.
            #expect(try await second.embeddingCoverage(model: modelA) == EmbeddingCoverage(photos: 4, current: 0, stale: 0, missing: 4))
            #expect(try await second.photosNeedingEmbedding(model: modelA) == [1, 2, 3, 5].map(RecognitionFixture.photo))
            let empty = try await second.exemplarsVersion(model: modelA)
            #expect(try await second.exemplars(model: modelA).isEmpty)

            try await first.setEmbedding([1, 0], model: modelA, forPhoto: sha(1), now: time(50))
            try await first.setEmbedding([0, 1], model: modelA, forPhoto: sha(3), now: time(51))
            try await first.setEmbedding([0.5, 0.5], model: modelB, forPhoto: sha(2), now: time(52))
            try await first.setEmbedding([0.25, 1], model: modelA, forPhoto: sha(4), now: time(53))
            #expect(try await second.embeddingCoverage(model: modelA) == EmbeddingCoverage(photos: 4, current: 2, stale: 1, missing: 1))
            #expect(try await second.embeddingCoverage(model: modelB) == EmbeddingCoverage(photos: 4, current: 1, stale: 2, missing: 1))
            #expect(try await second.photosNeedingEmbedding(model: modelA).map(\.sha256) == [sha(2), sha(5)])
            #expect(try await second.photosNeedingEmbedding(model: modelB).map(\.sha256) == [sha(1), sha(3), sha(5)])

            // A photo of two plants is an exemplar of each; plants in id order, their photos in the order added.
            let exemplars = try await second.exemplars(model: modelA)
            #expect(exemplars == [
                CollectionExemplar(plantId: 1, name: "Monstera", nickname: "Monty", room: "Hall", species: "Monstera deliciosa",
                                   confirmedSpecies: "Monstera deliciosa", photoSHA256: sha(1), vector: [1, 0]),
                CollectionExemplar(plantId: 1, name: "Monstera", nickname: "Monty", room: "Hall", species: "Monstera deliciosa",
                                   confirmedSpecies: "Monstera deliciosa", photoSHA256: sha(3), vector: [0, 1]),
                CollectionExemplar(plantId: 2, name: "Fern", nickname: nil, room: "Bath", species: nil, confirmedSpecies: nil,
                                   photoSHA256: sha(3), vector: [0, 1]),
            ])
            #expect(try await first.exemplars(model: modelB).map(\.photoSHA256) == [sha(2)])

            // The version changes when an exemplar changes, and only then.
            let version = try await second.exemplarsVersion(model: modelA)
            #expect(version != empty)
            #expect(try await first.exemplarsVersion(model: modelA) == version)
            _ = try await first.exemplars(model: modelA)
            _ = try await first.embedding(ofPhoto: sha(1))
            _ = try await first.confirmation(ofPlant: 1)
            try await first.setEmbedding([1, 1], model: modelB, forPhoto: sha(5), now: time(54))
            #expect(try await second.exemplarsVersion(model: modelA) == version)

            try await first.setEmbedding([0.5, 0], model: modelA, forPhoto: sha(1), now: time(55))
            let reembedded = try await second.exemplarsVersion(model: modelA)
            #expect(reembedded != version)
            try await first.confirmSpecies(SpeciesConfirmation(species: "Nephrolepis", source: .name), ofPlant: 2, now: time(56))
            let confirmed = try await second.exemplarsVersion(model: modelA)
            #expect(confirmed != reembedded)
            #expect(try await second.exemplars(model: modelA).last?.confirmedSpecies == "Nephrolepis")
            try await first.unconfirmSpecies(ofPlant: 2)
            #expect(try await second.exemplarsVersion(model: modelA) != confirmed)
            #expect(try await second.exemplars(model: modelA).last?.confirmedSpecies == nil)
        }
    }
}

/// Expects `body` to throw exactly `expected` (compared by description, as ``StoreError`` is not `Equatable`).
func expectStoreError(
    _ expected: StoreError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    let error = await #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.description == expected.description, sourceLocation: sourceLocation)
}
