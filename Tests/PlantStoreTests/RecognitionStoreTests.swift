import Foundation
import GRDB
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// Photo embeddings and confirmed species in a real SQLite file.
@Suite struct RecognitionStoreTests {
    private let modelA = EmbeddingModel(name: "resnet18-index", checksum: String(repeating: "a", count: 64))
    private let modelB = EmbeddingModel(name: "resnet18-index", checksum: String(repeating: "b", count: 64))

    private func unit(_ values: [Float]) -> [Float] {
        let length = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / length }
    }

    /// A collection whose "embedder" is the photo's first bytes as numbers, so each photo has its own vector.
    private func collection(_ home: TemporaryHome, embedder: PhotoEmbedder?) throws -> PlantCollection {
        var collection = PlantCollection(
            store: try home.open(), photos: PhotoLibrary(directory: home.directory, encoder: .storingOriginal),
            careGuide: try CareGuide.bundled(), lookup: { name in
                name.lowercased().hasPrefix("monstera")
                    ? CatalogPlant(scientificName: "Monstera deliciosa", commonNames: [], family: "Araceae", category: .tropicalFoliage)
                    : nil
            }
        )
        collection.embedder = embedder
        return collection
    }

    private func embedder(_ model: EmbeddingModel) -> PhotoEmbedder {
        PhotoEmbedder(model: model) { data in
            let bytes = Array(data.suffix(4)).map { Float($0) + 1 }
            let length = bytes.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return bytes.map { $0 / length }
        }
    }

    private func photo(_ seed: UInt8) -> Data { Data([0x89, 0x50, 0x4E, 0x47, seed, seed &* 3, 7, seed &+ 11]) }

    @Test func halfPrecisionRoundTripsWithinItsPrecision() throws {
        let values: [Float] = [0, -0, 1, -1, 0.5, 1e-3, -2.5e-5, 6e-8, 65_504, 70_000, -0.333_333, .infinity] + (0..<100).map { Float($0) / 37 }
        let restored = try #require(HalfPrecision.floats(from: HalfPrecision.bytes(of: values)))
        #expect(HalfPrecision.bytes(of: values).count == values.count * 2)
        for (value, back) in zip(values, restored) {
            if abs(value) > 65_504 {
                #expect(back.isInfinite && back.sign == value.sign)
            } else if abs(value) >= 6.1e-5 {
                #expect(abs(back - value) <= abs(value) / 2048, "\(value) → \(back)")
            } else {
                #expect(abs(back - value) <= 6e-8, "\(value) → \(back)")
            }
        }
        #expect(HalfPrecision.floats(from: Data([1, 2, 3])) == nil)
    }

    @Test func photosAddedWithAnEmbedderAreIndexedAndStaleOnesAreListed() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let indexing = try collection(home, embedder: embedder(modelA))
        let monty = try await indexing.addPlant(name: "Monstera", nickname: "Monty", room: "Hall", photo: photo(1))
        try await indexing.addPhoto(photo(2), toPlant: monty.id)
        let plain = try collection(home, embedder: nil)
        let fern = try await plain.addPlant(name: "Fern", photo: photo(3))
        let database = try indexing.database

        #expect(try database.embeddingCoverage(model: modelA) == EmbeddingCoverage(photos: 3, current: 2, stale: 0, missing: 1))
        #expect(try database.embeddingCoverage(model: modelB) == EmbeddingCoverage(photos: 3, current: 0, stale: 2, missing: 1))
        #expect(try database.photosNeedingEmbedding(model: modelA).count == 1)
        #expect(try database.photosNeedingEmbedding(model: modelB).count == 3)

        let exemplars = try database.exemplars(model: modelA)
        #expect(exemplars.map(\.plantId) == [monty.id, monty.id])
        #expect(exemplars.first?.nickname == "Monty")
        #expect(exemplars.first?.room == "Hall")
        #expect(exemplars.allSatisfy { $0.confirmedSpecies == "Monstera deliciosa" })
        let expected = try embedder(modelA).embed(photo(1))
        let stored = try #require(exemplars.first?.vector)
        #expect(zip(stored, expected).allSatisfy { abs($0 - $1) <= abs($1) / 1024 })
        #expect(try database.exemplars(model: modelB).isEmpty)

        let version = try database.exemplarsVersion(model: modelA)
        try await indexing.addPhoto(photo(9), toPlant: monty.id)
        #expect(try database.exemplarsVersion(model: modelA) != version)
        try await indexing.removePhoto(try #require(try database.photos(ofPlant: monty.id).last?.photo.sha256), fromPlant: monty.id)

        // Reindexing with model B replaces A's embeddings and indexes the fern's photo.
        for stale in try database.photosNeedingEmbedding(model: modelB) { _ = try await plain.reindex(stale, with: embedder(modelB)) }
        #expect(try database.embeddingCoverage(model: modelB) == EmbeddingCoverage(photos: 3, current: 3, stale: 0, missing: 0))
        #expect(try database.photosNeedingEmbedding(model: modelB).isEmpty)
        #expect(Set(try database.exemplars(model: modelB).map(\.plantId)) == [monty.id, fern.id])
        #expect(try database.exemplars(model: modelB).first { $0.plantId == fern.id }?.confirmedSpecies == nil)

        // Removing the plant removes its photos and, with them, their embeddings.
        try await plain.removePlant(id: monty.id)
        #expect(try database.exemplars(model: modelB).map(\.plantId) == [fern.id])
        let rows = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photoEmbedding") }
        #expect(rows == 1)
    }

    @Test func confirmationsAreRecordedAndCanBeUndone() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let plants = try collection(home, embedder: embedder(modelA))
        let database = try plants.database
        let named = try await plants.addPlant(name: "Monstera", photo: photo(1))
        let free = try await plants.addPlant(name: "Kitchen plant", photo: photo(2))
        #expect(try database.confirmation(ofPlant: named.id)?.species == "Monstera deliciosa")
        #expect(try database.confirmation(ofPlant: named.id)?.source == .name)
        #expect(try database.confirmation(ofPlant: free.id) == nil)

        // Creating a plant from an accepted identification confirms its species, even one the catalog lacks.
        let answer = Identification(
            source: .plantNetAPI, predictions: [SpeciesPrediction(rank: 1, scientificName: "Zamioculcas zamiifolia", confidence: 0.9)],
            uncertain: false
        )
        let filed = try await plants.fileIdentification(answer, photo: photo(3), createPlant: true)
        let created = try #require(filed.plantId)
        #expect(try database.confirmation(ofPlant: created) == SpeciesConfirmation(
            species: "Zamioculcas zamiifolia", source: .identification, confirmedAt: try database.confirmation(ofPlant: created)?.confirmedAt
        ))
        #expect(try database.exemplars(model: modelA).compactMap(\.confirmedSpecies).sorted() == ["Monstera deliciosa", "Zamioculcas zamiifolia"])

        // Undo: its photos stop naming the species but still belong to the plant.
        let before = try database.exemplarsVersion(model: modelA)
        #expect(try database.exemplarsVersion(model: modelA) == before)
        let withdrawn = try database.unconfirmSpecies(ofPlant: created)
        #expect(try database.exemplarsVersion(model: modelA) != before)
        #expect(withdrawn?.species == "Zamioculcas zamiifolia")
        #expect(try database.confirmation(ofPlant: created) == nil)
        #expect(try database.unconfirmSpecies(ofPlant: created) == nil)
        #expect(try database.exemplars(model: modelA).filter { $0.plantId == created }.map(\.confirmedSpecies) == [nil])
        #expect(throws: StoreError.self) { try database.unconfirmSpecies(ofPlant: 999) }
        try database.confirmSpecies(SpeciesConfirmation(species: "Zamioculcas zamiifolia", source: .name), ofPlant: created, now: Date())
        #expect(try database.confirmation(ofPlant: created)?.source == .name)
        #expect(throws: StoreError.self) {
            try database.confirmSpecies(SpeciesConfirmation(species: "  ", source: .name), ofPlant: created, now: Date())
        }
    }

    /// Plants named in a CSV list are named by their owner: a catalog match is confirmed.
    @Test func importedNamesAreConfirmed() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let plants = try collection(home, embedder: nil)
        let report = try await CSVPlantImport(collection: plants).run("name,room\nMonstera,Hall\nUnknown thing,Hall\n")
        let added = try #require(report.added.first)
        #expect(try plants.database.confirmation(ofPlant: added.id)?.species == "Monstera deliciosa")
        #expect(report.unmatched.count == 1)
    }

    /// The schema refuses a vector whose size does not match its dimension, and a confirmation without a species.
    @Test func theSchemaGuardsItsColumns() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let plants = try collection(home, embedder: nil)
        let plant = try await plants.addPlant(name: "Fern", photo: photo(1))
        let sha = try #require(try plants.database.photos(ofPlant: plant.id).first?.photo.sha256)
        #expect(throws: (any Error).self) {
            try plants.database.writer.write { db in
                try db.execute(
                    sql: "INSERT INTO photoEmbedding VALUES (?, 'm', NULL, 4, ?, '2026-01-01 00:00:00.000')", arguments: [sha, Data([1, 2])]
                )
            }
        }
        #expect(throws: (any Error).self) {
            try plants.database.writer.write { db in
                try db.execute(sql: "UPDATE plant SET confirmedBy = 'name' WHERE id = ?", arguments: [plant.id])
            }
        }
        #expect(throws: StoreError.self) { try plants.database.setEmbedding([.nan], model: modelA, forPhoto: sha, now: Date()) }
        #expect(throws: StoreError.self) { try plants.database.setEmbedding([1], model: modelA, forPhoto: String(repeating: "0", count: 64), now: Date()) }
    }

    /// Plants of an older collection that have a catalog species start confirmed.
    @Test func upgradingConfirmsPlantsThatHaveASpecies() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try Schema.migrator.migrate(queue, upTo: "v7")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO plant (uuid, name, species, createdAt, updatedAt)
                    VALUES ('00000000-0000-0000-0000-000000000001', 'Monty', 'Monstera deliciosa', '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000'),
                           ('00000000-0000-0000-0000-000000000002', 'Thing', NULL, '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000');
                    """)
            }
            try queue.close()
        }
        let database = try home.open()
        #expect(try database.confirmation(ofPlant: 1)?.species == "Monstera deliciosa")
        #expect(try database.confirmation(ofPlant: 1)?.source == .name)
        #expect(try database.confirmation(ofPlant: 2) == nil)
    }
}
