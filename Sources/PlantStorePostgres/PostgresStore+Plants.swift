import Foundation
import Logging
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Plants and their photos on PostgreSQL, the twin of `CollectionDatabase+Plants.swift`: the same records, list order,
/// errors and photo bookkeeping.
///
/// Where SQLite's single writer makes check-then-act safe, this store locks: every change to a plant first locks its row
/// (`FOR NO KEY UPDATE`, `FOR UPDATE` to remove it), so two replicas changing one plant take turns; a photo about to be
/// released is locked `FOR UPDATE` before its uses are counted, and linking a photo re-inserts its record with an upsert
/// that waits for such a lock, so a photo is never deleted under a new link nor a link refused for a photo just
/// released.
extension PostgresStore: PlantsStore {
    // MARK: Plants

    public func addPlant(_ plant: NewPlant, profile: CareProfile, photo: StoredPhoto?, now: Date) async throws(StoreError) -> Plant {
        let household = try scope("add a plant").household
        let now = now.roundedToMilliseconds
        let record = try Plant.new(plant, now: now)
        return try await inTransaction("add a plant") { connection in
            let added = try await Self.insertPlant(
                record, household: household, profile: profile, confirmation: plant.confirmation, on: connection, logger: self.logger
            )
            if let photo { try await Self.link(photo, to: added.id, at: now, on: connection, logger: self.logger) }
            return added
        }
    }

    public func addPlants(_ seeds: [PlantSeed], now: Date) async throws(StoreError) -> [Plant] {
        let scope = try scope("add plants")
        let household = scope.household
        let now = now.roundedToMilliseconds
        return try await inTransaction("add plants") { connection in
            var added: [Plant] = []
            for seed in seeds {
                let plant = try await Self.insertPlant(
                    try Plant.new(seed.plant, now: now), household: household, profile: seed.profile,
                    confirmation: seed.plant.confirmation, on: connection, logger: self.logger
                )
                if let photo = seed.photo { try await Self.link(photo, to: plant.id, at: now, on: connection, logger: self.logger) }
                for event in seed.events {
                    try await connection.query("""
                        INSERT INTO careEvent (uuid, plantId, task, day, note, createdAt, recordedBy)
                        VALUES (\(UUID().uuidString.lowercased()), \(plant.id), \(event.task.rawValue), \(PostgresDay(event.day)),
                            \(event.note), \(PostgresInstant(now)), \(scope.userName))
                        """, logger: self.logger)
                }
                added.append(plant)
            }
            return added
        }
    }

    public func addPlantsSkippingDuplicates(_ plants: [(NewPlant, CareProfile)], now: Date) async throws(StoreError)
        -> (added: [Plant], skipped: Int) {
        let household = try scope("add plants").household
        let now = now.roundedToMilliseconds
        return try await inTransaction("add plants") { connection in
            // One adder at a time (as SQLite's single writer), so two replicas importing the same list add it once.
            try await connection.query("LOCK TABLE plant IN SHARE ROW EXCLUSIVE MODE", logger: self.logger)
            var added: [Plant] = [], skipped = 0
            for (plant, profile) in plants {
                let candidate = try Plant.new(plant, now: now)
                let rows = try await connection.query("""
                    SELECT EXISTS (SELECT 1 FROM plant WHERE householdId = \(household)
                        AND lower(name COLLATE "C") = lower(\(candidate.name)::text COLLATE "C")
                        AND lower(species COLLATE "C") IS NOT DISTINCT FROM lower(\(candidate.species)::text COLLATE "C")
                        AND lower(nickname COLLATE "C") IS NOT DISTINCT FROM lower(\(candidate.nickname)::text COLLATE "C")
                        AND lower(room COLLATE "C") IS NOT DISTINCT FROM lower(\(candidate.room)::text COLLATE "C"))
                    """, logger: self.logger)
                var duplicate = false
                for try await exists in rows.decode(Bool.self) { duplicate = exists }
                if duplicate {
                    skipped += 1
                    continue
                }
                added.append(try await Self.insertPlant(
                    candidate, household: household, profile: profile, confirmation: plant.confirmation, on: connection, logger: self.logger
                ))
            }
            return (added, skipped)
        }
    }

    public func plant(id: Int64) async throws(StoreError) -> Plant? {
        let household = try scope("read a plant").household
        return try await withConnection("read a plant") { connection in
            try await Self.plant(id: id, household: household, on: connection, logger: self.logger)
        }
    }

    /// Plants ordered by room, then name; only one room's when `room` is given (ASCII case ignored).
    ///
    /// The household's whole list comes from ``plantCache`` while the household's change stamp (pg8) is the one it was
    /// read at (a room's is taken from it then): one statement reading the stamp when nothing changed; after a change,
    /// only the plants changed since are read again (pg9, ``KeptLists``).
    public func plants(room: String?) async throws(StoreError) -> [Plant] {
        let household = try scope("list plants").household
        let cache = plantCache
        return try await withConnection("list plants") { connection in
            let stamp = try await Self.changeStamp(household: household, on: connection, logger: self.logger)
            if let plants = try await Self.keptList(
                cache, household: household, stamp: stamp, on: connection, logger: self.logger,
                fresh: { try await Self.plants(ids: $0, household: household, on: connection, logger: self.logger) },
                plantId: \.id, precedes: KeptLists.listOrder
            ) {
                return RoomNames.filter(plants, room: room, by: \.room)
            }
            // The list order of SQLite (rooms A–Z ignoring ASCII case, no room last, then name and id), written as the
            // plant_listOrder index is, so PostgreSQL reads it in index order.
            if let room {
                let rows = try await connection.query("""
                    SELECT \(unescaped: Self.plantColumns) FROM plant
                    WHERE householdId = \(household) AND (room IS NULL) = false
                        AND lower(room COLLATE "C") = lower(\(room)::text COLLATE "C")
                    ORDER BY lower(name COLLATE "C"), id
                    """, logger: self.logger)
                var plants: [Plant] = []
                for try await row in rows { plants.append(try Self.plant(row)) }
                return plants
            }
            // The stamp comes with every row, so it is the one of the statement's snapshot, the list's.
            let rows = try await connection.query("""
                SELECT coalesce((SELECT stamp FROM changeStamp WHERE householdId = \(household)), 0), \(unescaped: Self.plantColumns)
                FROM plant WHERE householdId = \(household)
                ORDER BY (room IS NULL), lower(room COLLATE "C"), lower(name COLLATE "C"), id
                """, logger: self.logger)
            var plants: [Plant] = [], listStamp: Int64?
            for try await row in rows {
                var columns = PostgresColumns(row)
                listStamp = try columns.int64()
                plants.append(try Self.plant(&columns))
            }
            if let listStamp { cache.keep(plants, household: household, stamp: listStamp) }
            return plants
        }
    }

    /// The plants of `household` among `ids`, in no particular order.
    static func plants(ids: [Int64], household: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [Plant] {
        guard !ids.isEmpty else { return [] }
        let rows = try await connection.query("""
            SELECT \(unescaped: plantColumns) FROM plant WHERE householdId = \(household) AND id = ANY(\(ids))
            """, logger: logger)
        var plants: [Plant] = []
        for try await row in rows { plants.append(try plant(row)) }
        return plants
    }

    public func plantCount() async throws(StoreError) -> Int {
        let household = try scope("count plants").household
        return try await withConnection("count plants") { connection in
            let rows = try await connection.query(
                "SELECT count(*) FROM plant WHERE householdId = \(household)", logger: self.logger
            )
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }

    public func details(ofPlant id: Int64) async throws(StoreError) -> PlantDetails {
        let household = try scope("read a plant").household
        return try await inSnapshot("read a plant") { connection in
            guard let plant = try await Self.plant(id: id, household: household, on: connection, logger: self.logger) else { throw StoreError.plantNotFound(id) }
            let photos = try await connection.query("""
                SELECT \(unescaped: Self.photoColumns) FROM photo JOIN plantPhoto ON plantPhoto.photoSHA256 = photo.sha256
                WHERE plantPhoto.plantId = \(id) ORDER BY plantPhoto.addedAt, photo.sha256 COLLATE "C"
                """, logger: self.logger)
            var stored: [StoredPhoto] = []
            for try await row in photos.decode(PhotoRow.self) { stored.append(Self.photo(row)) }
            return PlantDetails(
                plant: plant,
                profile: try await Self.profile(ofPlant: id, on: connection, logger: self.logger),
                scheduleSettings: try await Self.scheduleSettings(ofPlant: id, on: connection, logger: self.logger),
                photos: stored,
                events: try await Self.events(plantId: id, household: household, on: connection, logger: self.logger),
                identifications: try await Self.identifications(
                    plantId: id, household: household, on: connection, logger: self.logger
                ),
                healthRecords: try await Self.healthRecords(plantId: id, on: connection, logger: self.logger)
            )
        }
    }

    public func updatePlant(_ plant: Plant, now: Date) async throws(StoreError) -> Plant {
        let household = try scope("update a plant").household
        return try await inTransaction("update a plant") { connection in
            guard let existing = try await Self.plant(id: plant.id, household: household, lock: "FOR NO KEY UPDATE", on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(plant.id)
            }
            var updated = plant
            updated.uuid = existing.uuid
            updated.createdAt = existing.createdAt
            updated.updatedAt = max(now.roundedToMilliseconds, existing.createdAt)
            try updated.checkEdit()
            try await connection.query("""
                UPDATE plant SET name = \(updated.name), species = \(updated.species), nickname = \(updated.nickname),
                    room = \(updated.room), acquiredOn = \(updated.acquiredOn.bound), notes = \(updated.notes),
                    updatedAt = \(PostgresInstant(updated.updatedAt))
                WHERE id = \(updated.id)
                """, logger: self.logger)
            return updated
        }
    }

    public func removePlant(id: Int64) async throws(StoreError) -> [StoredPhoto] {
        let household = try scope("remove a plant").household
        return try await inTransaction("remove a plant") { connection in
            // Locked first, so a photo attached meanwhile is either in the list below or not attached at all.
            guard try await Self.lockPlant(id, household: household, mode: "FOR UPDATE", on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(id)
            }
            // Its photos and its health records' photos: what may be left unused once the plant and its records go.
            let rows = try await connection.query("""
                SELECT photoSHA256 FROM plantPhoto WHERE plantId = \(id)
                UNION SELECT hp.photoSHA256 FROM healthRecordPhoto hp JOIN healthRecord hr ON hr.id = hp.recordId
                    WHERE hr.plantId = \(id)
                """, logger: self.logger)
            var linked: [String] = []
            for try await sha256 in rows.decode(String.self) { linked.append(sha256) }
            try await connection.query("DELETE FROM plant WHERE id = \(id)", logger: self.logger)
            return try await Self.releaseUnusedPhotos(linked, on: connection, logger: self.logger)
        }
    }

    // MARK: Photos

    public func attachPhoto(_ photo: StoredPhoto, toPlant plantId: Int64, now: Date) async throws(StoreError) {
        let household = try scope("attach a photo").household
        let now = now.roundedToMilliseconds
        try await inTransaction("attach a photo") { connection in
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else { throw StoreError.plantNotFound(plantId) }
            try await Self.link(photo, to: plantId, at: now, on: connection, logger: self.logger)
            try await Self.touchPlant(plantId, at: now, on: connection, logger: self.logger)
        }
    }

    public func photos(ofPlant plantId: Int64) async throws(StoreError) -> [PlantPhoto] {
        let household = try scope("list a plant's photos").household
        return try await inSnapshot("list a plant's photos") { connection in
            guard try await Self.plant(id: plantId, household: household, on: connection, logger: self.logger) != nil else {
                throw StoreError.plantNotFound(plantId)
            }
            let cover = try await Self.coverSHA256(ofPlant: plantId, on: connection, logger: self.logger)
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.photoColumns), plantPhoto.addedAt FROM photo
                JOIN plantPhoto ON plantPhoto.photoSHA256 = photo.sha256
                WHERE plantPhoto.plantId = \(plantId) ORDER BY plantPhoto.addedAt, photo.sha256 COLLATE "C"
                """, logger: self.logger)
            var photos: [PlantPhoto] = []
            for try await (sha256, original, type, bytes, width, height, thumbnail, created, added)
                in rows.decode((String, String, String, Int, Int?, Int?, String?, PostgresInstant, PostgresInstant).self) {
                let photo = Self.photo((sha256, original, type, bytes, width, height, thumbnail, created))
                photos.append(PlantPhoto(photo: photo, addedAt: added.date, isCover: sha256 == cover))
            }
            return photos
        }
    }

    public func coverPhoto(ofPlant plantId: Int64) async throws(StoreError) -> String? {
        let household = try scope("find a plant's cover photo").household
        return try await withConnection("find a plant's cover photo") { connection in
            try await Self.coverSHA256(ofPlant: plantId, household: household, on: connection, logger: self.logger)
        }
    }

    public func setCoverPhoto(_ sha256: String, ofPlant plantId: Int64, now: Date) async throws(StoreError) {
        let household = try scope("choose a cover photo").household
        let now = now.roundedToMilliseconds
        try await inTransaction("choose a cover photo") { connection in
            // The plant's lock makes choosers take turns: each clears the cover the one before it set.
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else { throw StoreError.plantNotFound(plantId) }
            try await Self.requireLink(sha256, plantId: plantId, on: connection, logger: self.logger)
            // Cleared first: the unique index allows one cover per plant at every step.
            try await connection.query(
                "UPDATE plantPhoto SET isCover = false WHERE plantId = \(plantId) AND isCover", logger: self.logger
            )
            try await connection.query(
                "UPDATE plantPhoto SET isCover = true WHERE plantId = \(plantId) AND photoSHA256 = \(sha256)", logger: self.logger
            )
            try await Self.touchPlant(plantId, at: now, on: connection, logger: self.logger)
        }
    }

    public func detachPhoto(_ sha256: String, fromPlant plantId: Int64, now: Date) async throws(StoreError) -> StoredPhoto? {
        let household = try scope("remove a photo").household
        let now = now.roundedToMilliseconds
        return try await inTransaction("remove a photo") { connection in
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else { throw StoreError.plantNotFound(plantId) }
            try await Self.requireLink(sha256, plantId: plantId, on: connection, logger: self.logger)
            try await connection.query(
                "DELETE FROM plantPhoto WHERE plantId = \(plantId) AND photoSHA256 = \(sha256)", logger: self.logger
            )
            try await Self.touchPlant(plantId, at: now, on: connection, logger: self.logger)
            return try await Self.releaseUnusedPhotos([sha256], on: connection, logger: self.logger).first
        }
    }

    public func photo(originalSHA256: String) async throws(StoreError) -> StoredPhoto? {
        // Global: it finds the bytes already stored (whoever stored them) before storing them again.
        _ = try scope("find a photo")
        return try await withConnection("find a photo") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.photoColumns) FROM photo WHERE originalSHA256 = \(originalSHA256)
                ORDER BY createdAt, sha256 COLLATE "C" LIMIT 1
                """, logger: self.logger)
            for try await row in rows.decode(PhotoRow.self) { return Self.photo(row) }
            return nil
        }
    }

    public func photo(sha256: String) async throws(StoreError) -> StoredPhoto? {
        let household = try scope("find a photo").household
        return try await withConnection("find a photo") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.photoColumns) FROM photo WHERE sha256 = \(sha256)
                    AND \(unescaped: Self.photoVisible(household))
                """, logger: self.logger)
            for try await row in rows.decode(PhotoRow.self) { return Self.photo(row) }
            return nil
        }
    }

    public func allPhotos() async throws(StoreError) -> [StoredPhoto] {
        let household = try scope("list photos").household
        return try await withConnection("list photos") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.photoColumns) FROM photo WHERE \(unescaped: Self.photoVisible(household))
                ORDER BY sha256 COLLATE "C"
                """, logger: self.logger)
            var photos: [StoredPhoto] = []
            for try await row in rows.decode(PhotoRow.self) { photos.append(Self.photo(row)) }
            return photos
        }
    }
}

// MARK: - Rows and statements the other parts reuse

extension PostgresStore {
    /// Runs `body` in a transaction on a leased connection, mapping errors as ``withConnection(_:_:)`` except a violated
    /// constraint, which becomes ``StoreError/invalid(_:)`` as in the SQLite store.
    func inTransaction<Result: Sendable>(
        _ operation: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws(StoreError) -> Result {
        try await withConnection(operation) { connection in
            do {
                return try await connection.withTransaction(logger: self.logger) { connection in try await body(connection) }
            } catch {
                throw PostgresErrors.refusedChange(error, location: self.location) ?? error
            }
        }
    }

    /// Runs `body` in a read-only transaction that sees one snapshot (`REPEATABLE READ`), as an SQLite read does, so a
    /// record assembled from several statements is consistent.
    func inSnapshot<Result: Sendable>(
        _ operation: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws(StoreError) -> Result {
        try await inTransaction(operation) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: self.logger)
            return try await body(connection)
        }
    }

    /// The `plant` columns ``plant(_:)`` reads, in its order.
    static let plantColumns =
        "plant.id, plant.uuid, plant.name, plant.species, plant.nickname, plant.room, plant.acquiredOn, plant.notes, "
        + "plant.createdAt, plant.updatedAt"

    /// The plant of a row of ``plantColumns``.
    static func plant(_ row: PostgresRow) throws(StoreError) -> Plant {
        var columns = PostgresColumns(row)
        return try plant(&columns)
    }

    /// The plant of the next columns (``plantColumns``) of a row.
    static func plant(_ columns: inout PostgresColumns) throws(StoreError) -> Plant {
        Plant(
            id: try columns.int64(), uuid: try columns.string(), name: try columns.string(), species: try columns.optionalString(),
            nickname: try columns.optionalString(), room: try columns.optionalString(), acquiredOn: try columns.optionalDay(),
            notes: try columns.optionalString(), createdAt: try columns.instant(), updatedAt: try columns.instant()
        )
    }

    /// The plant with this id in `household`, read with `lock` (e.g. `FOR NO KEY UPDATE`) when given; `nil` also for
    /// another household's plant.
    static func plant(id: Int64, household: Int64, lock: String = "", on connection: PostgresConnection, logger: Logger)
        async throws -> Plant? {
        let rows = try await connection.query(
            "SELECT \(unescaped: plantColumns) FROM plant WHERE id = \(id) AND householdId = \(household) \(unescaped: lock)",
            logger: logger
        )
        for try await row in rows { return try plant(row) }
        return nil
    }

    /// Locks a plant's row for a change (`mode` `FOR NO KEY UPDATE` by default; `FOR UPDATE` to delete it); `false` when
    /// `household` has no such plant.
    static func lockPlant(
        _ id: Int64, household: Int64, mode: String = "FOR NO KEY UPDATE", on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT id FROM plant WHERE id = \(id) AND householdId = \(household) \(unescaped: mode)", logger: logger
        )
        for try await _ in rows.decode(Int64.self) { return true }
        return false
    }

    /// Moves a plant's `updatedAt` to `date` unless it is later already.
    static func touchPlant(_ id: Int64, at date: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "UPDATE plant SET updatedAt = greatest(updatedAt, \(PostgresInstant(date))) WHERE id = \(id)", logger: logger
        )
    }

    /// Inserts a plant record (from `Plant.new`) with its care profile (if any) and confirmed species; returns it with its
    /// id.
    static func insertPlant(
        _ plant: Plant, household: Int64, profile: CareProfile?, confirmation: SpeciesConfirmation?,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Plant {
        try plant.checkLimits()
        let rows = try await connection.query("""
            INSERT INTO plant (householdId, uuid, name, species, nickname, room, acquiredOn, notes, createdAt, updatedAt)
            VALUES (\(household), \(plant.uuid), \(plant.name), \(plant.species), \(plant.nickname), \(plant.room), \(plant.acquiredOn.bound),
                \(plant.notes), \(PostgresInstant(plant.createdAt)), \(PostgresInstant(plant.updatedAt)))
            RETURNING id
            """, logger: logger)
        var record = plant
        for try await id in rows.decode(Int64.self) { record.id = id }
        if let profile { try await setProfile(profile, plantId: record.id, on: connection, logger: logger) }
        if let confirmation {
            try await recordConfirmation(confirmation, plantId: record.id, at: plant.createdAt, on: connection, logger: logger)
        }
        return record
    }

    /// Stores a plant's care profile, replacing any.
    static func setProfile(_ profile: CareProfile, plantId: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, fertilizeGrowingDays, mistDays, repotDays,
                pruneDays, humidity, minTemperature, maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis)
            VALUES (\(plantId), \(profile.light.rawValue), \(profile.waterGrowingDays), \(profile.waterWinterDays),
                \(profile.fertilizeGrowingDays), \(profile.mistDays), \(profile.repotDays), \(profile.pruneDays),
                \(profile.humidity.rawValue), \(profile.minTemperature), \(profile.maxTemperature), \(profile.toxicToCats),
                \(profile.toxicToDogs), \(profile.toxicitySource), \(profile.basis))
            ON CONFLICT (plantId) DO UPDATE SET light = excluded.light, waterGrowingDays = excluded.waterGrowingDays,
                waterWinterDays = excluded.waterWinterDays, fertilizeGrowingDays = excluded.fertilizeGrowingDays,
                mistDays = excluded.mistDays, repotDays = excluded.repotDays, pruneDays = excluded.pruneDays,
                humidity = excluded.humidity, minTemperature = excluded.minTemperature, maxTemperature = excluded.maxTemperature,
                toxicToCats = excluded.toxicToCats, toxicToDogs = excluded.toxicToDogs, toxicitySource = excluded.toxicitySource,
                basis = excluded.basis
            """, logger: logger)
    }

    /// A plant's care profile, if it has one.
    static func profile(ofPlant plantId: Int64, on connection: PostgresConnection, logger: Logger) async throws -> CareProfile? {
        let rows = try await connection.query(
            "SELECT \(unescaped: profileColumns) FROM careProfile WHERE plantId = \(plantId)", logger: logger
        )
        for try await row in rows.decode(ProfileRow.self) { return try profile(row) }
        return nil
    }

    /// The `careProfile` columns ``profile(_:)`` reads, in its order.
    static let profileColumns = """
        plantId, light, waterGrowingDays, waterWinterDays, fertilizeGrowingDays, mistDays, repotDays, pruneDays, humidity, \
        minTemperature, maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis
        """
    /// A row of ``profileColumns``.
    typealias ProfileRow = (Int64, String, Int, Int, Int?, Int?, Int?, Int?, String, Int, Int, Bool, Bool, String, String)

    /// The care profile of a row of ``profileColumns``.
    static func profile(_ row: ProfileRow) throws -> CareProfile {
        guard let light = LightLevel(rawValue: row.1), let humidity = HumidityLevel(rawValue: row.8) else {
            throw StoreError.invalid("care profile of plant \(row.0) has an unknown light or humidity level")
        }
        return CareProfile(
            light: light, waterGrowingDays: row.2, waterWinterDays: row.3, fertilizeGrowingDays: row.4, mistDays: row.5,
            repotDays: row.6, pruneDays: row.7, humidity: humidity, minTemperature: row.9, maxTemperature: row.10,
            toxicToCats: row.11, toxicToDogs: row.12, toxicitySource: row.13, basis: row.14
        )
    }

    /// Records a plant's confirmed species (replacing any), checked as every store checks it.
    static func recordConfirmation(
        _ confirmation: SpeciesConfirmation, plantId: Int64, at date: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let species = try confirmation.checkedSpecies()
        try await connection.query("""
            UPDATE plant SET confirmedSpecies = \(species), confirmedBy = \(confirmation.source.rawValue),
                confirmedAt = \(PostgresInstant(date))
            WHERE id = \(plantId)
            """, logger: logger)
    }

    /// The `photo` columns ``photo(_:)`` reads, in its order.
    static let photoColumns =
        "photo.sha256, photo.originalSHA256, photo.mediaType, photo.byteCount, photo.width, photo.height, "
        + "photo.thumbnailSHA256, photo.createdAt"
    /// A row of ``photoColumns``.
    typealias PhotoRow = (String, String, String, Int, Int?, Int?, String?, PostgresInstant)

    /// The stored photo of a row of ``photoColumns``.
    static func photo(_ row: PhotoRow) -> StoredPhoto {
        StoredPhoto(
            sha256: row.0, originalSHA256: row.1, mediaType: row.2, byteCount: row.3, width: row.4, height: row.5,
            thumbnailSHA256: row.6, createdAt: row.7.date
        )
    }

    /// Records a photo unless it is there. An upsert, not a check then an insert: when another transaction is releasing
    /// the photo (holding its row `FOR UPDATE`), this waits and, once the record is gone, inserts it again, so the link
    /// that follows never fails; and while this transaction runs, the row lock keeps the photo from being released.
    static func recordPhoto(_ photo: StoredPhoto, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, width, height, thumbnailSHA256, createdAt)
            VALUES (\(photo.sha256), \(photo.originalSHA256), \(photo.mediaType), \(photo.byteCount), \(photo.width),
                \(photo.height), \(photo.thumbnailSHA256), \(PostgresInstant(photo.createdAt)))
            ON CONFLICT (sha256) DO UPDATE SET createdAt = photo.createdAt
            """, logger: logger)
    }

    /// Records a photo (if new) and links it to a plant, added at `date`; a link already there stays as it is.
    static func link(_ photo: StoredPhoto, to plantId: Int64, at date: Date, on connection: PostgresConnection, logger: Logger)
        async throws {
        try await recordPhoto(photo, on: connection, logger: logger)
        try await connection.query("""
            INSERT INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (\(plantId), \(photo.sha256), \(PostgresInstant(date)))
            ON CONFLICT (plantId, photoSHA256) DO NOTHING
            """, logger: logger)
    }

    /// Deletes the records of those of these photos nothing uses any more (no plant, identification, queued re-check or
    /// health record)
    /// and returns them, by SHA-256, so their files can go. Each photo is locked first, so a link being added waits
    /// for this transaction, or this one for it, and its use is counted.
    static func releaseUnusedPhotos(_ sha256s: [String], on connection: PostgresConnection, logger: Logger) async throws
        -> [StoredPhoto] {
        guard !sha256s.isEmpty else { return [] }
        try await connection.query(
            "SELECT sha256 FROM photo WHERE sha256 = ANY(\(sha256s)) ORDER BY sha256 COLLATE \"C\" FOR UPDATE", logger: logger
        )
        let rows = try await connection.query("""
            DELETE FROM photo WHERE sha256 = ANY(\(sha256s))
                AND NOT EXISTS (SELECT 1 FROM plantPhoto WHERE plantPhoto.photoSHA256 = photo.sha256)
                AND NOT EXISTS (SELECT 1 FROM identification WHERE identification.photoSHA256 = photo.sha256)
                AND NOT EXISTS (SELECT 1 FROM recheckPhoto WHERE recheckPhoto.photoSHA256 = photo.sha256)
                AND NOT EXISTS (SELECT 1 FROM healthRecordPhoto WHERE healthRecordPhoto.photoSHA256 = photo.sha256)
            RETURNING \(unescaped: photoColumns)
            """, logger: logger)
        var released: [StoredPhoto] = []
        for try await row in rows.decode(PhotoRow.self) { released.append(photo(row)) }
        return released.sorted { $0.sha256 < $1.sha256 }
    }

    /// The SHA-256 of a plant's cover (of `household`'s plant only, when given): the chosen photo, else the one added
    /// last.
    static func coverSHA256(ofPlant plantId: Int64, household: Int64? = nil, on connection: PostgresConnection, logger: Logger)
        async throws -> String? {
        let rows = try await connection.query("""
            SELECT photoSHA256 FROM plantPhoto WHERE plantId = \(plantId)
                AND (\(household)::bigint IS NULL OR EXISTS (SELECT 1 FROM plant WHERE id = \(plantId) AND householdId = \(household)))
            ORDER BY isCover DESC, addedAt DESC, photoSHA256 COLLATE "C" DESC LIMIT 1
            """, logger: logger)
        for try await sha256 in rows.decode(String.self) { return sha256 }
        return nil
    }

    /// The condition (on `photo`) that a photo is visible to `household`: linked to one of its plants, the photo of one
    /// of its identifications, a photo of a re-check of one of them, or of one of its plants' health records. `household` is an integer, so it is written as
    /// a literal.
    static func photoVisible(_ household: Int64) -> String {
        """
        (EXISTS (SELECT 1 FROM plantPhoto pp JOIN plant vp ON vp.id = pp.plantId
                 WHERE pp.photoSHA256 = photo.sha256 AND vp.householdId = \(household))
            OR EXISTS (SELECT 1 FROM identification vi WHERE vi.photoSHA256 = photo.sha256 AND vi.householdId = \(household))
            OR EXISTS (SELECT 1 FROM recheckPhoto rp JOIN recheck vr ON vr.id = rp.recheckId
                       JOIN identification vri ON vri.id = vr.identificationId
                       WHERE rp.photoSHA256 = photo.sha256 AND vri.householdId = \(household))
            OR EXISTS (SELECT 1 FROM healthRecordPhoto hp JOIN healthRecord hr ON hr.id = hp.recordId
                       JOIN plant hrp ON hrp.id = hr.plantId
                       WHERE hp.photoSHA256 = photo.sha256 AND hrp.householdId = \(household)))
        """
    }

    private static func requireLink(_ sha256: String, plantId: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE plantId = \(plantId) AND photoSHA256 = \(sha256))", logger: logger
        )
        var linked = false
        for try await value in rows.decode(Bool.self) { linked = value }
        guard linked else { throw StoreError.invalid("Plant #\(plantId) has no photo \(sha256.prefix(12)).") }
    }
}
