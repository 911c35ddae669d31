import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Recognition of the collection's own plants on PostgreSQL (confirmed species and photo embeddings): the twin of
/// `CollectionDatabase+Recognition`. Embeddings are stored as the same float16 bytes.
extension PostgresStore: RecognitionStore {
    // MARK: - Confirmed species

    public func confirmation(ofPlant plantId: Int64) async throws(StoreError) -> SpeciesConfirmation? {
        let household = try scope("read a plant's confirmed species").household
        return try await withConnection("read a plant's confirmed species") { connection in
            try await self.confirmation(ofPlant: plantId, household: household, on: connection, locking: false)
        }
    }

    public func confirmSpecies(_ confirmation: SpeciesConfirmation, ofPlant plantId: Int64, now: Date) async throws(StoreError) {
        let household = try scope("confirm a plant's species").household
        _ = try confirmation.checkedSpecies()
        try await inTransaction("confirm a plant's species") { connection in
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(plantId)
            }
            try await Self.recordConfirmation(
                confirmation, plantId: plantId, at: now.roundedToMilliseconds, on: connection, logger: self.logger
            )
        }
    }

    @discardableResult
    public func unconfirmSpecies(ofPlant plantId: Int64) async throws(StoreError) -> SpeciesConfirmation? {
        let household = try scope("withdraw a plant's confirmed species").household
        return try await inTransaction("withdraw a plant's confirmed species") { connection in
            let existing = try await self.confirmation(ofPlant: plantId, household: household, on: connection, locking: true)
            try await connection.query(
                "UPDATE plant SET confirmedSpecies = NULL, confirmedBy = NULL, confirmedAt = NULL WHERE id = \(plantId)",
                logger: self.logger
            )
            return existing
        }
    }

    /// A plant's confirmation read on `connection` (with the row locked when `locking`); throws
    /// ``StoreError/plantNotFound(_:)`` when there is no such plant.
    private func confirmation(ofPlant plantId: Int64, household: Int64, on connection: PostgresConnection, locking: Bool)
        async throws -> SpeciesConfirmation? {
        let rows = try await connection.query("""
            SELECT confirmedSpecies, confirmedBy, confirmedAt FROM plant
            WHERE id = \(plantId) AND householdId = \(household)\(unescaped: locking ? " FOR NO KEY UPDATE" : "")
            """, logger: logger)
        for try await (species, source, confirmedAt) in rows.decode((String?, String?, PostgresInstant?).self) {
            guard let species, let source = source.flatMap(SpeciesConfirmation.Source.init(rawValue:)) else { return nil }
            return SpeciesConfirmation(species: species, source: source, confirmedAt: confirmedAt?.date)
        }
        throw StoreError.plantNotFound(plantId)
    }

    // MARK: - Embeddings

    public func setEmbedding(_ vector: [Float], model: EmbeddingModel, forPhoto sha256: String, now: Date)
        async throws(StoreError) {
        // Keyed by the photo's content, for every household that has the photo; a scope is still required (fail closed).
        _ = try scope("store a photo's embedding")
        try EmbeddingRules.validate(vector)
        let bytes = HalfPrecision.bytes(of: vector), createdAt = PostgresInstant(now)
        try await inTransaction("store a photo's embedding") { connection in
            // One statement: the photo's existence and the write are one step (a photo deleted meanwhile fails the key).
            let rows = try await connection.query("""
                INSERT INTO photoEmbedding (photoSHA256, model, modelChecksum, dimension, vector, createdAt)
                SELECT sha256, \(model.name), \(model.checksum), \(vector.count), \(bytes), \(createdAt)
                FROM photo WHERE sha256 = \(sha256)
                ON CONFLICT (photoSHA256) DO UPDATE SET model = excluded.model, modelChecksum = excluded.modelChecksum,
                    dimension = excluded.dimension, vector = excluded.vector, createdAt = excluded.createdAt
                RETURNING 1
                """, logger: self.logger)
            var stored = false
            for try await _ in rows.decode(Int.self) { stored = true }
            if !stored { throw StoreError.invalid("There is no photo \(sha256.prefix(12)).") }
        }
    }

    public func embedding(ofPhoto sha256: String) async throws(StoreError) -> (vector: [Float], model: EmbeddingModel)? {
        _ = try scope("read a photo's embedding")
        let found: (Data, String, String?)? = try await withConnection("read a photo's embedding") { connection in
            let rows = try await connection.query(
                "SELECT vector, model, modelChecksum FROM photoEmbedding WHERE photoSHA256 = \(sha256)", logger: self.logger
            )
            for try await row in rows.decode((Data, String, String?).self) { return row }
            return nil
        }
        guard let (bytes, name, checksum) = found, let vector = HalfPrecision.floats(from: bytes) else { return nil }
        return (vector, EmbeddingModel(name: name, checksum: checksum))
    }

    public func embeddingCoverage(model: EmbeddingModel) async throws(StoreError) -> EmbeddingCoverage {
        let household = try scope("count photo embeddings").household
        return try await withConnection("count photo embeddings") { connection in
            let rows = try await connection.query("""
                SELECT count(*),
                    count(*) FILTER (WHERE e.photoSHA256 IS NOT NULL AND e.model = \(model.name)
                        AND e.modelChecksum IS NOT DISTINCT FROM \(model.checksum)),
                    count(*) FILTER (WHERE e.photoSHA256 IS NOT NULL AND NOT (e.model = \(model.name)
                        AND e.modelChecksum IS NOT DISTINCT FROM \(model.checksum)))
                FROM (SELECT DISTINCT photoSHA256 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                      WHERE plant.householdId = \(household)) AS p
                LEFT JOIN photoEmbedding AS e ON e.photoSHA256 = p.photoSHA256
                """, logger: self.logger)
            for try await (photos, current, stale) in rows.decode((Int, Int, Int).self) {
                return EmbeddingCoverage(photos: photos, current: current, stale: stale, missing: photos - current - stale)
            }
            return EmbeddingCoverage(photos: 0, current: 0, stale: 0, missing: 0)
        }
    }

    public func photosNeedingEmbedding(model: EmbeddingModel) async throws(StoreError) -> [StoredPhoto] {
        let household = try scope("list photos to index").household
        return try await withConnection("list photos to index") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.photoColumns) FROM photo
                LEFT JOIN photoEmbedding AS e ON e.photoSHA256 = photo.sha256
                WHERE EXISTS (SELECT 1 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                              WHERE plantPhoto.photoSHA256 = photo.sha256 AND plant.householdId = \(household))
                    AND (e.photoSHA256 IS NULL OR e.model <> \(model.name) OR e.modelChecksum IS DISTINCT FROM \(model.checksum))
                ORDER BY photo.createdAt, photo.sha256 COLLATE "C"
                """, logger: self.logger)
            var photos: [StoredPhoto] = []
            for try await row in rows.decode(PhotoRow.self) { photos.append(Self.photo(row)) }
            return photos
        }
    }

    public func exemplarsVersion(model: EmbeddingModel) async throws(StoreError) -> String {
        let household = try scope("summarise the collection's embeddings").household
        return try await withConnection("summarise the collection's embeddings") { connection in
            // Counts, latest times (as exact epoch microseconds) and the confirmed names' length: any change to what
            // exemplars(model:) returns changes one of them.
            let rows = try await connection.query("""
                SELECT
                    (SELECT count(*)::text || '/' || coalesce((extract(epoch FROM max(createdAt)) * 1000000)::bigint::text, '')
                        FROM photoEmbedding e WHERE model = \(model.name) AND modelChecksum IS NOT DISTINCT FROM \(model.checksum)
                            AND EXISTS (SELECT 1 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                                        WHERE plantPhoto.photoSHA256 = e.photoSHA256 AND plant.householdId = \(household))),
                    (SELECT count(*)::text || '/' || coalesce((extract(epoch FROM max(addedAt)) * 1000000)::bigint::text, '')
                        FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId WHERE plant.householdId = \(household)),
                    (SELECT count(*)::text || '/' || coalesce((extract(epoch FROM max(updatedAt)) * 1000000)::bigint::text, '')
                        || '/' || count(confirmedAt)::text || '/'
                        || coalesce((extract(epoch FROM max(confirmedAt)) * 1000000)::bigint::text, '')
                        || '/' || coalesce(sum(length(confirmedSpecies)), 0)::text FROM plant WHERE householdId = \(household))
                """, logger: self.logger)
            for try await (embeddings, links, plants) in rows.decode((String, String, String).self) {
                return ["h\(household)", embeddings, links, plants].joined(separator: "|")
            }
            return ""
        }
    }

    public func exemplars(model: EmbeddingModel) async throws(StoreError) -> [CollectionExemplar] {
        let household = try scope("read the collection's embeddings").household
        return try await withConnection("read the collection's embeddings") { connection in
            let rows = try await connection.query("""
                SELECT plant.id, plant.name, plant.nickname, plant.room, plant.species, plant.confirmedSpecies,
                    e.photoSHA256, e.vector
                FROM photoEmbedding AS e
                JOIN plantPhoto ON plantPhoto.photoSHA256 = e.photoSHA256
                JOIN plant ON plant.id = plantPhoto.plantId
                WHERE plant.householdId = \(household) AND e.model = \(model.name) AND e.modelChecksum IS NOT DISTINCT FROM \(model.checksum)
                ORDER BY plant.id, plantPhoto.addedAt, e.photoSHA256 COLLATE "C"
                """, logger: self.logger)
            var exemplars: [CollectionExemplar] = []
            for try await (plantId, name, nickname, room, species, confirmed, sha256, bytes)
                in rows.decode((Int64, String, String?, String?, String?, String?, String, Data).self) {
                guard let vector = HalfPrecision.floats(from: bytes) else { continue }
                exemplars.append(CollectionExemplar(
                    plantId: plantId, name: name, nickname: nickname, room: room, species: species, confirmedSpecies: confirmed,
                    photoSHA256: sha256, vector: vector
                ))
            }
            return exemplars
        }
    }
}
