import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    // MARK: - Confirmed species

    /// A plant's confirmed species, if any.
    public func confirmation(ofPlant plantId: Int64) throws(StoreError) -> SpeciesConfirmation? {
        let household = try self.scope("read a plant's confirmed species").household
        return try read("read a plant's confirmed species") { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT confirmedSpecies, confirmedBy, confirmedAt FROM plant WHERE id = ? AND householdId = ?",
                arguments: [plantId, household]
            ) else { throw StoreError.plantNotFound(plantId) }
            guard let species: String = row["confirmedSpecies"], let source = (row["confirmedBy"] as String?).flatMap(SpeciesConfirmation.Source.init)
            else { return nil }
            return SpeciesConfirmation(species: species, source: source, confirmedAt: row.timestamp("confirmedAt"))
        }
    }

    /// Confirms a plant's species (replacing an earlier confirmation): its photos become exemplars of it.
    public func confirmSpecies(_ confirmation: SpeciesConfirmation, ofPlant plantId: Int64, now: Date) throws(StoreError) {
        let household = try self.scope("confirm a plant's species").household
        try write("confirm a plant's species") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            try Self.recordConfirmation(confirmation, plantId: plantId, at: now.roundedToMilliseconds, db: db)
        }
    }

    /// Withdraws a plant's confirmed species (a wrong confirmation): its photos stop naming species, though they still
    /// recognise the plant itself. Returns the confirmation withdrawn, `nil` when there was none.
    @discardableResult
    public func unconfirmSpecies(ofPlant plantId: Int64) throws(StoreError) -> SpeciesConfirmation? {
        let household = try self.scope("withdraw a plant's confirmed species").household
        let existing = try confirmation(ofPlant: plantId)
        try write("withdraw a plant's confirmed species") { db in
            try db.execute(
                sql: "UPDATE plant SET confirmedSpecies = NULL, confirmedBy = NULL, confirmedAt = NULL WHERE id = ? AND householdId = ?",
                arguments: [plantId, household]
            )
        }
        return existing
    }

    static func recordConfirmation(_ confirmation: SpeciesConfirmation, plantId: Int64, at date: Date, db: Database) throws {
        let species = try confirmation.checkedSpecies()
        try db.execute(
            sql: "UPDATE plant SET confirmedSpecies = ?, confirmedBy = ?, confirmedAt = ? WHERE id = ?",
            arguments: [species, confirmation.source.rawValue, date, plantId]
        )
    }

    // MARK: - Embeddings

    /// Stores (or replaces) a photo's embedding, as float16, tagged with the model that made it.
    public func setEmbedding(_ vector: [Float], model: EmbeddingModel, forPhoto sha256: String, now: Date) throws(StoreError) {
        try EmbeddingRules.validate(vector)
        _ = try self.scope("store a photo's embedding")  // Keyed by content for every household; fails closed outside any.
        try write("store a photo's embedding") { db in
            guard try StoredPhoto.exists(db, key: sha256) else { throw StoreError.invalid("There is no photo \(sha256.prefix(12)).") }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO photoEmbedding (photoSHA256, model, modelChecksum, dimension, vector, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [sha256, model.name, model.checksum, vector.count, HalfPrecision.bytes(of: vector), now.roundedToMilliseconds]
            )
        }
    }

    /// A photo's stored embedding and the model that made it, if any.
    public func embedding(ofPhoto sha256: String) throws(StoreError) -> (vector: [Float], model: EmbeddingModel)? {
        _ = try self.scope("read a photo's embedding")  // Keyed by content for every household; fails closed outside any.
        return try read("read a photo's embedding") { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT model, modelChecksum, vector FROM photoEmbedding WHERE photoSHA256 = ?", arguments: [sha256]
            ), let vector = HalfPrecision.floats(from: row["vector"]) else { return nil }
            return (vector, EmbeddingModel(name: row["model"], checksum: row["modelChecksum"]))
        }
    }

    /// How many of the collection's photos (those attached to a plant of the household in scope) have an embedding of
    /// `model`.
    public func embeddingCoverage(model: EmbeddingModel) throws(StoreError) -> EmbeddingCoverage {
        let household = try self.scope("count photo embeddings").household
        return try read("count photo embeddings") { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*) AS photos,
                    coalesce(sum(e.photoSHA256 IS NOT NULL AND e.model = ?1 AND e.modelChecksum IS ?2), 0) AS current,
                    coalesce(sum(e.photoSHA256 IS NOT NULL AND NOT (e.model = ?1 AND e.modelChecksum IS ?2)), 0) AS stale
                FROM (SELECT DISTINCT plantPhoto.photoSHA256 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                      WHERE plant.householdId = ?3) AS p
                LEFT JOIN photoEmbedding AS e ON e.photoSHA256 = p.photoSHA256
                """, arguments: [model.name, model.checksum, household])
            let photos: Int = row?["photos"] ?? 0, current: Int = row?["current"] ?? 0, stale: Int = row?["stale"] ?? 0
            return EmbeddingCoverage(photos: photos, current: current, stale: stale, missing: photos - current - stale)
        }
    }

    /// The collection's photos with no embedding of `model` (none, or another model's), oldest first.
    public func photosNeedingEmbedding(model: EmbeddingModel) throws(StoreError) -> [StoredPhoto] {
        let household = try self.scope("list photos to index").household
        return try read("list photos to index") { db in
            try StoredPhoto.fetchAll(db, sql: """
                SELECT photo.* FROM photo
                LEFT JOIN photoEmbedding AS e ON e.photoSHA256 = photo.sha256
                WHERE EXISTS (SELECT 1 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                              WHERE plantPhoto.photoSHA256 = photo.sha256 AND plant.householdId = ?)
                    AND (e.photoSHA256 IS NULL OR e.model != ? OR e.modelChecksum IS NOT ?)
                ORDER BY photo.createdAt, photo.sha256
                """, arguments: [household, model.name, model.checksum])
        }
    }

    /// A cheap summary of everything ``exemplars(model:)`` returns (embeddings, photo links, plants and their
    /// confirmations): it changes whenever they do, so a searcher can keep its index until then.
    public func exemplarsVersion(model: EmbeddingModel) throws(StoreError) -> String {
        let household = try self.scope("summarise the collection's embeddings").household
        return try read("summarise the collection's embeddings") { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT count(*) || '/' || coalesce(max(createdAt), '') FROM photoEmbedding WHERE model = ?1 AND modelChecksum IS ?2
                        AND photoSHA256 IN (SELECT plantPhoto.photoSHA256 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                                            WHERE plant.householdId = ?3)),
                    (SELECT count(*) || '/' || coalesce(max(addedAt), '') FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                        WHERE plant.householdId = ?3),
                    (SELECT count(*) || '/' || coalesce(max(updatedAt), '') || '/' || count(confirmedAt) || '/'
                        || coalesce(max(confirmedAt), '') || '/' || coalesce(sum(length(confirmedSpecies)), 0) FROM plant
                        WHERE householdId = ?3)
                """, arguments: [model.name, model.checksum, household])
            // The household leads, so two households' versions never match by chance.
            return (["h\(household)"] + [0, 1, 2].map { (row?[$0] as String?) ?? "" }).joined(separator: "|")
        }
    }

    /// Every plant photo with an embedding of `model`, with its plant: what matching searches. A photo of two
    /// plants appears once for each.
    public func exemplars(model: EmbeddingModel) throws(StoreError) -> [CollectionExemplar] {
        let household = try self.scope("read the collection's embeddings").household
        return try read("read the collection's embeddings") { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT plant.id, plant.name, plant.nickname, plant.room, plant.species, plant.confirmedSpecies,
                    e.photoSHA256, e.vector
                FROM photoEmbedding AS e
                JOIN plantPhoto ON plantPhoto.photoSHA256 = e.photoSHA256
                JOIN plant ON plant.id = plantPhoto.plantId
                WHERE e.model = ? AND e.modelChecksum IS ? AND plant.householdId = ?
                ORDER BY plant.id, plantPhoto.addedAt, e.photoSHA256
                """, arguments: [model.name, model.checksum, household])
            var exemplars: [CollectionExemplar] = []
            while let row = try rows.next() {
                guard let vector = HalfPrecision.floats(from: row[7]) else { continue }
                exemplars.append(CollectionExemplar(
                    plantId: row[0], name: row[1], nickname: row[2], room: row[3], species: row[4], confirmedSpecies: row[5],
                    photoSHA256: row[6], vector: vector
                ))
            }
            return exemplars
        }
    }
}
