import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Adds a plant with its care profile and, optionally, a stored photo, in one transaction.
    /// - Parameters:
    ///   - plant: what to add; the name must not be empty.
    ///   - profile: the care profile it starts with (from the care guide).
    ///   - photo: a photo already written by ``PhotoLibrary``, to record and attach.
    ///   - now: the current time (injected so tests control it).
    @discardableResult
    public func addPlant(_ plant: NewPlant, profile: CareProfile, photo: StoredPhoto? = nil, now: Date) throws(StoreError) -> Plant {
        let now = now.roundedToMilliseconds
        let record = try Plant.new(plant, now: now)
        let scope = try self.scope("add a plant")
        return try write("add a plant") { db in
            let record = try insertPlant(record, household: scope.household, db: db)
            if let confirmation = plant.confirmation { try Self.recordConfirmation(confirmation, plantId: record.id, at: now, db: db) }
            try CareProfileRow(plantId: record.id, profile: profile).insert(db)
            if let photo { try Self.link(photo, to: record.id, at: now, db: db) }
            return record
        }
    }

    /// Inserts a plant row of a household as given except its id, which SQLite assigns.
    func insertPlant(_ plant: Plant, household: Int64, db: Database) throws -> Plant {
        try plant.checkLimits()
        var row = plant
        row.id = 0
        try InHousehold(row, household).insert(db)
        row.id = db.lastInsertedRowID
        return row
    }

    /// The plant with this id when it belongs to `household`.
    static func plant(_ id: Int64, in household: Int64, db: Database) throws -> Plant? {
        try Plant.fetchOne(
            db, sql: "SELECT \(Plant.columnList) FROM plant WHERE id = ? AND householdId = ?", arguments: [id, household]
        )
    }

    /// Whether the plant with this id belongs to `household` (a plant of another household is as good as missing).
    static func plantExists(_ id: Int64, in household: Int64, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM plant WHERE id = ? AND householdId = ?)", arguments: [id, household]
        ) ?? false
    }

    /// The plant with this id, if any (in the household in scope).
    public func plant(id: Int64) throws(StoreError) -> Plant? {
        let scope = try self.scope("read a plant")
        return try read("read a plant") { db in try Self.plant(id, in: scope.household, db: db) }
    }

    /// Plants ordered by room, then name; only one room's when `room` is given (case-insensitive).
    ///
    /// The household's whole list comes from ``plantCache`` while the household's change stamp is the one it was read at
    /// (a room's is taken from it then); after a change, only the plants changed since are read again (``KeptLists``).
    public func plants(room: String? = nil) throws(StoreError) -> [Plant] {
        let household = try self.scope("list plants").household
        let cache = plantCache
        return try read("list plants") { db in
            let stamp = try Self.changeStamp(db, household: household)
            if let plants = try Self.keptList(
                db, cache, household: household, stamp: stamp,
                fresh: { changed in
                    changed.isEmpty ? [] : try Plant.fetchAll(
                        db, sql: "SELECT \(Plant.columnList) FROM plant WHERE householdId = ? AND id IN \(Self.sqlList(changed))",
                        arguments: [household]
                    )
                },
                plantId: \.id, precedes: KeptLists.listOrder
            ) {
                return RoomNames.filter(plants, room: room, by: \.room)
            }
            if let room {
                // `(room IS NULL) = 0` adds nothing to the filter but lets SQLite search the list-order index.
                return try Plant.fetchAll(
                    db, sql: """
                        SELECT \(Plant.columnList) FROM plant WHERE householdId = ? AND (room IS NULL) = 0 AND room = ? COLLATE NOCASE
                        ORDER BY name COLLATE NOCASE, id
                        """,
                    arguments: [household, room]
                )
            }
            let plants = try Plant.fetchAll(
                db, sql: """
                    SELECT \(Plant.columnList) FROM plant WHERE householdId = ?
                    ORDER BY room IS NULL, room COLLATE NOCASE, name COLLATE NOCASE, id
                    """,
                arguments: [household]
            )
            cache.keep(plants, household: household, stamp: stamp)
            return plants
        }
    }

    /// Number of plants in the collection.
    public func plantCount() throws(StoreError) -> Int {
        let household = try self.scope("count plants").household
        return try read("count plants") { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM plant WHERE householdId = ?", arguments: [household]) ?? 0
        }
    }

    /// Everything about one plant: profile, schedule settings, photos, events and identifications.
    public func details(ofPlant id: Int64) throws(StoreError) -> PlantDetails {
        let household = try self.scope("read a plant").household
        return try read("read a plant") { db in
            guard let plant = try Self.plant(id, in: household, db: db) else { throw StoreError.plantNotFound(id) }
            return PlantDetails(
                plant: plant,
                profile: try CareProfileRow.fetchOne(db, key: id)?.profile,
                scheduleSettings: try CareScheduleSettings
                    .fetchAll(db, sql: "SELECT * FROM careSchedule WHERE plantId = ?", arguments: [id]),
                photos: try StoredPhoto.fetchAll(db, sql: """
                    SELECT photo.* FROM photo JOIN plantPhoto ON plantPhoto.photoSHA256 = photo.sha256
                    WHERE plantPhoto.plantId = ? ORDER BY plantPhoto.addedAt, photo.sha256
                    """, arguments: [id]),
                events: try CareEvent.fetchAll(
                    db, sql: "SELECT * FROM careEvent WHERE plantId = ? ORDER BY day DESC, id DESC", arguments: [id]
                ),
                identifications: try FiledIdentification.fetchAll(
                    db, sql: "SELECT * FROM identification WHERE plantId = ? ORDER BY identifiedAt DESC, id DESC",
                    arguments: [id]
                ),
                healthRecords: try Self.healthRecords(plantId: id, db: db)
            )
        }
    }

    /// Changes a plant's descriptive fields (not its id, uuid or creation time).
    @discardableResult
    public func updatePlant(_ plant: Plant, now: Date) throws(StoreError) -> Plant {
        let household = try self.scope("update a plant").household
        return try write("update a plant") { db in
            guard let existing = try Self.plant(plant.id, in: household, db: db) else { throw StoreError.plantNotFound(plant.id) }
            var updated = plant
            updated.uuid = existing.uuid
            updated.createdAt = existing.createdAt
            updated.updatedAt = max(now.roundedToMilliseconds, existing.createdAt)
            try updated.checkEdit()
            try updated.update(db)
            return updated
        }
    }

    /// Removes a plant with its profile, schedules, events and photo links, in one transaction.
    /// Its identifications stay in the history, unfiled. Returns the photos no longer used by
    /// anything, whose files the caller may delete (``PhotoLibrary/removeFiles(of:now:)``).
    @discardableResult
    public func removePlant(id: Int64) throws(StoreError) -> [StoredPhoto] {
        let household = try self.scope("remove a plant").household
        return try write("remove a plant") { db in
            guard try Self.plantExists(id, in: household, db: db) else { throw StoreError.plantNotFound(id) }
            // Its photos and its health records' photos: what may be left unused once the plant and its records go.
            let photos = try StoredPhoto.fetchAll(db, sql: """
                SELECT photo.* FROM photo WHERE sha256 IN (
                    SELECT photoSHA256 FROM plantPhoto WHERE plantId = ?1
                    UNION SELECT healthRecordPhoto.photoSHA256 FROM healthRecordPhoto
                        JOIN healthRecord ON healthRecord.id = healthRecordPhoto.recordId WHERE healthRecord.plantId = ?1)
                ORDER BY photo.sha256
                """, arguments: [id])
            guard try Plant.deleteOne(db, key: id) else { throw StoreError.plantNotFound(id) }
            var orphans: [StoredPhoto] = []
            for photo in photos where try !Self.isPhotoUsed(photo.sha256, db: db) {
                try photo.delete(db)
                orphans.append(photo)
            }
            return orphans
        }
    }

    /// Attaches a stored photo to a plant (recording the photo if new) in one transaction.
    public func attachPhoto(_ photo: StoredPhoto, toPlant plantId: Int64, now: Date) throws(StoreError) {
        let household = try self.scope("attach a photo").household
        try write("attach a photo") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            try Self.link(photo, to: plantId, at: now.roundedToMilliseconds, db: db)
            try db.execute(sql: "UPDATE plant SET updatedAt = max(updatedAt, ?) WHERE id = ?", arguments: [now.roundedToMilliseconds, plantId])
        }
    }

    /// A plant's photos, oldest first, each marked when it is the cover (see ``coverPhoto(ofPlant:)``).
    public func photos(ofPlant plantId: Int64) throws(StoreError) -> [PlantPhoto] {
        let household = try self.scope("list a plant's photos").household
        return try read("list a plant's photos") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            let cover = try Self.coverSHA256(ofPlant: plantId, db: db)
            return try Row.fetchAll(db, sql: """
                SELECT photo.*, plantPhoto.addedAt AS linkedAt FROM photo
                JOIN plantPhoto ON plantPhoto.photoSHA256 = photo.sha256
                WHERE plantPhoto.plantId = ? ORDER BY plantPhoto.addedAt, photo.sha256
                """, arguments: [plantId]).map { row in
                let photo = try StoredPhoto(row: row)
                return PlantPhoto(photo: photo, addedAt: row.timestamp("linkedAt"), isCover: photo.sha256 == cover)
            }
        }
    }

    /// The SHA-256 of the photo that stands for a plant: the one chosen with ``setCoverPhoto(_:ofPlant:now:)``,
    /// else the one added last; `nil` when the plant has no photo.
    public func coverPhoto(ofPlant plantId: Int64) throws(StoreError) -> String? {
        let household = try self.scope("find a plant's cover photo").household
        return try read("find a plant's cover photo") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { return nil }
            return try Self.coverSHA256(ofPlant: plantId, db: db)
        }
    }

    /// Makes one of a plant's photos its cover, in place of any earlier choice.
    public func setCoverPhoto(_ sha256: String, ofPlant plantId: Int64, now: Date) throws(StoreError) {
        let household = try self.scope("choose a cover photo").household
        try write("choose a cover photo") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            try Self.requireLink(sha256, plantId: plantId, db: db)
            // Cleared first: the unique index allows one cover per plant at every step.
            try db.execute(sql: "UPDATE plantPhoto SET isCover = 0 WHERE plantId = ? AND isCover = 1", arguments: [plantId])
            try db.execute(
                sql: "UPDATE plantPhoto SET isCover = 1 WHERE plantId = ? AND photoSHA256 = ?", arguments: [plantId, sha256]
            )
            try db.execute(sql: "UPDATE plant SET updatedAt = max(updatedAt, ?) WHERE id = ?", arguments: [now.roundedToMilliseconds, plantId])
        }
    }

    /// Takes a photo off a plant, in one transaction. Returns the photo when nothing uses it any more (no other
    /// plant, no identification), after deleting its record; the caller may then delete its files
    /// (``PhotoLibrary/removeFiles(of:now:)``).
    @discardableResult
    public func detachPhoto(_ sha256: String, fromPlant plantId: Int64, now: Date) throws(StoreError) -> StoredPhoto? {
        let household = try self.scope("remove a photo").household
        return try write("remove a photo") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            try Self.requireLink(sha256, plantId: plantId, db: db)
            try db.execute(sql: "DELETE FROM plantPhoto WHERE plantId = ? AND photoSHA256 = ?", arguments: [plantId, sha256])
            try db.execute(sql: "UPDATE plant SET updatedAt = max(updatedAt, ?) WHERE id = ?", arguments: [now.roundedToMilliseconds, plantId])
            guard try !Self.isPhotoUsed(sha256, db: db), let photo = try StoredPhoto.fetchOne(db, key: sha256) else { return nil }
            try photo.delete(db)
            return photo
        }
    }

    private static func coverSHA256(ofPlant plantId: Int64, db: Database) throws -> String? {
        try String.fetchOne(db, sql: """
            SELECT photoSHA256 FROM plantPhoto WHERE plantId = ?
            ORDER BY isCover DESC, addedAt DESC, photoSHA256 DESC LIMIT 1
            """, arguments: [plantId])
    }

    private static func requireLink(_ sha256: String, plantId: Int64, db: Database) throws {
        let linked = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE plantId = ? AND photoSHA256 = ?)", arguments: [plantId, sha256]
        ) ?? false
        guard linked else { throw StoreError.invalid("Plant #\(plantId) has no photo \(sha256.prefix(12)).") }
    }

    /// A recorded photo found by the SHA-256 of its original file, so a repeat is not re-encoded. Install-wide: photos
    /// are stored by content, and the caller has the bytes already.
    public func photo(originalSHA256: String) throws(StoreError) -> StoredPhoto? {
        _ = try self.scope("find a photo")  // Only so that a store outside any household fails closed.
        return try read("find a photo") { db in
            try StoredPhoto.fetchOne(db, sql: "SELECT * FROM photo WHERE originalSHA256 = ? LIMIT 1", arguments: [originalSHA256])
        }
    }

    /// The recorded photo with this content address, if the household in scope uses it (on one of its plants, as the
    /// photo of one of its identifications, or in one of its re-checks).
    public func photo(sha256: String) throws(StoreError) -> StoredPhoto? {
        let household = try self.scope("find a photo").household
        return try read("find a photo") { db in
            try StoredPhoto.fetchOne(
                db, sql: "SELECT * FROM photo WHERE sha256 = :sha256 AND \(Self.photoVisible)",
                arguments: ["sha256": sha256, "household": household]
            )
        }
    }

    /// Every recorded photo the household in scope uses (see ``photo(sha256:)``).
    public func allPhotos() throws(StoreError) -> [StoredPhoto] {
        let household = try self.scope("list photos").household
        return try read("list photos") { db in
            try StoredPhoto.fetchAll(
                db, sql: "SELECT * FROM photo WHERE \(Self.photoVisible) ORDER BY sha256", arguments: ["household": household]
            )
        }
    }

    /// Whether `photo.sha256` is used by household `:household`: linked to one of its plants, the photo of one of its
    /// identifications, a photo of a re-check of one of them, or a photo of one of its plants' health records.
    static let photoVisible = """
        (EXISTS (SELECT 1 FROM plantPhoto JOIN plant ON plant.id = plantPhoto.plantId
                 WHERE plantPhoto.photoSHA256 = photo.sha256 AND plant.householdId = :household)
         OR EXISTS (SELECT 1 FROM identification WHERE identification.photoSHA256 = photo.sha256 AND identification.householdId = :household)
         OR EXISTS (SELECT 1 FROM recheckPhoto JOIN recheck ON recheck.id = recheckPhoto.recheckId
                    JOIN identification ON identification.id = recheck.identificationId
                    WHERE recheckPhoto.photoSHA256 = photo.sha256 AND identification.householdId = :household)
         OR EXISTS (SELECT 1 FROM healthRecordPhoto JOIN healthRecord ON healthRecord.id = healthRecordPhoto.recordId
                    JOIN plant ON plant.id = healthRecord.plantId
                    WHERE healthRecordPhoto.photoSHA256 = photo.sha256 AND plant.householdId = :household))
        """

    static func link(_ photo: StoredPhoto, to plantId: Int64, at date: Date, db: Database) throws {
        try recordPhoto(photo, db: db)
        try db.execute(
            sql: "INSERT OR IGNORE INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (?, ?, ?)",
            arguments: [plantId, photo.sha256, date]
        )
    }

    static func recordPhoto(_ photo: StoredPhoto, db: Database) throws {
        if try !StoredPhoto.exists(db, key: photo.sha256) {
            var photo = photo
            photo.createdAt = photo.createdAt.roundedToMilliseconds
            try photo.insert(db)
        }
    }

    /// Whether anything of any household still uses the photo (so it is no orphan).
    static func isPhotoUsed(_ sha256: String, db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE photoSHA256 = ?1)
                OR EXISTS (SELECT 1 FROM identification WHERE photoSHA256 = ?1)
                OR EXISTS (SELECT 1 FROM recheckPhoto WHERE photoSHA256 = ?1)
                OR EXISTS (SELECT 1 FROM healthRecordPhoto WHERE photoSHA256 = ?1)
            """, arguments: [sha256]) ?? true
    }
}

extension CollectionDatabase {
    /// Adds several plants in one transaction, skipping any that match a plant already in the
    /// collection (same name, species, nickname and room, case-insensitive).
    public func addPlantsSkippingDuplicates(
        _ plants: [(NewPlant, CareProfile)], now: Date
    ) throws(StoreError) -> (added: [Plant], skipped: Int) {
        let now = now.roundedToMilliseconds
        let household = try self.scope("add plants").household
        return try write("add plants") { db in
            var added: [Plant] = [], skipped = 0
            for (plant, profile) in plants {
                let candidate = try Plant.new(plant, now: now)
                let duplicate = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM plant WHERE householdId = ? AND name = ? COLLATE NOCASE
                        AND species IS ? COLLATE NOCASE AND nickname IS ? COLLATE NOCASE AND room IS ? COLLATE NOCASE)
                    """, arguments: [household, candidate.name, candidate.species, candidate.nickname, candidate.room]) ?? false
                if duplicate {
                    skipped += 1
                    continue
                }
                let record = try insertPlant(candidate, household: household, db: db)
                try CareProfileRow(plantId: record.id, profile: profile).insert(db)
                if let confirmation = plant.confirmation { try Self.recordConfirmation(confirmation, plantId: record.id, at: now, db: db) }
                added.append(record)
            }
            return (added, skipped)
        }
    }
}

extension CollectionDatabase {
    /// Adds plants with their profiles, photos and care events, all in one transaction: after a
    /// crash either every one of them is there, complete, or none is.
    @discardableResult
    public func addPlants(_ seeds: [PlantSeed], now: Date) throws(StoreError) -> [Plant] {
        let now = now.roundedToMilliseconds
        let scope = try self.scope("add plants")
        return try write("add plants") { db in
            try seeds.map { seed in
                let plant = try insertPlant(try Plant.new(seed.plant, now: now), household: scope.household, db: db)
                try CareProfileRow(plantId: plant.id, profile: seed.profile).insert(db)
                if let confirmation = seed.plant.confirmation {
                    try Self.recordConfirmation(confirmation, plantId: plant.id, at: now, db: db)
                }
                if let photo = seed.photo { try Self.link(photo, to: plant.id, at: now, db: db) }
                for event in seed.events {
                    try CareEvent(
                        id: 0, uuid: UUID().uuidString.lowercased(), plantId: plant.id, task: event.task, day: event.day,
                        note: event.note, createdAt: now, recordedBy: scope.userName
                    ).insert(db)
                }
                return plant
            }
        }
    }
}

/// A record written with the household it belongs to, which the record types themselves do not carry.
struct InHousehold<Record: PersistableRecord>: PersistableRecord {
    static var databaseTableName: String { Record.databaseTableName }
    var record: Record
    var householdId: Int64

    init(_ record: Record, _ householdId: Int64) {
        self.record = record
        self.householdId = householdId
    }

    func encode(to container: inout PersistenceContainer) throws {
        try record.encode(to: &container)
        container["householdId"] = householdId
    }
}
