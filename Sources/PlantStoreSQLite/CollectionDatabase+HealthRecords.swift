import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Keeps a diagnosis in a plant's history, in one transaction: its photos are recorded (if new) and named by the
    /// record in the order given.
    @discardableResult
    public func saveHealthRecord(_ record: NewHealthRecord, plantId: Int64, now: Date) throws(StoreError) -> HealthRecord {
        let record = try record.checked()
        let diagnosis = try record.diagnosis.map(DiagnosisColumn.encode)
        let now = now.roundedToMilliseconds
        let scope = try self.scope("keep a health record")
        return try write("keep a health record") { db in
            guard try Self.plantExists(plantId, in: scope.household, db: db) else { throw StoreError.plantNotFound(plantId) }
            let uuid = UUID().uuidString.lowercased()
            try db.execute(
                sql: """
                    INSERT INTO healthRecord (uuid, plantId, diagnosis, note, recordedBy, recordedAt, language)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [uuid, plantId, diagnosis, record.note, scope.userName, now, diagnosis == nil ? record.language : nil]
            )
            let id = db.lastInsertedRowID
            try Self.insertHealthPhotos(record.photos.map { ($0.photo, $0.organ) }, recordId: id, db: db)
            return HealthRecord(
                id: id, uuid: uuid, plantId: plantId, diagnosis: record.diagnosis,
                waiting: record.language.map { HealthRecordWait(language: $0) }, photos: record.photos.map { HealthRecordPhoto(sha256: $0.photo.sha256, organ: $0.organ) },
                note: record.note, recordedBy: scope.userName, recordedAt: now
            )
        }
    }

    /// A plant's health records, newest first.
    public func healthRecords(plantId: Int64) throws(StoreError) -> [HealthRecord] {
        let household = try self.scope("read a plant's health records").household
        return try read("read a plant's health records") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            return try Self.healthRecords(plantId: plantId, db: db)
        }
    }

    /// Removes one of a plant's health records; returns its photos nothing else uses any more, or `nil` when the plant
    /// has no such record.
    public func removeHealthRecord(id: Int64, ofPlant plantId: Int64) throws(StoreError) -> [StoredPhoto]? {
        let household = try self.scope("remove a health record").household
        return try write("remove a health record") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            let photos = try StoredPhoto.fetchAll(db, sql: """
                SELECT photo.* FROM photo WHERE sha256 IN (SELECT photoSHA256 FROM healthRecordPhoto WHERE recordId = ?)
                ORDER BY sha256
                """, arguments: [id])
            try db.execute(sql: "DELETE FROM healthRecord WHERE id = ? AND plantId = ?", arguments: [id, plantId])
            guard db.changesCount == 1 else { return nil }
            var orphans: [StoredPhoto] = []
            for photo in photos where try !Self.isPhotoUsed(photo.sha256, db: db) {
                try photo.delete(db)
                orphans.append(photo)
            }
            return orphans
        }
    }

    // MARK: - Records that wait for Pl@ntNet

    /// The household's records that wait for Pl@ntNet (kept while it could not be reached), oldest first. Records
    /// another process has claimed are included; see ``claimHealthRecord(_:now:lease:claimant:)``.
    public func waitingHealthRecords() throws(StoreError) -> [HealthRecord] {
        let household = try self.scope("read the health records that wait").household
        return try read("read the health records that wait") { db in
            try Self.healthRecords(where: "plant.householdId = ? AND \(Self.healthWaits)", [household], db: db).reversed()
        }
    }

    /// How many records ``waitingHealthRecords()`` would return, counted without reading them and their photos.
    public func waitingHealthRecordCount() throws(StoreError) -> Int {
        let household = try self.scope("count the health records that wait").household
        return try read("count the health records that wait") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM healthRecord WHERE \(Self.healthWaitsInHousehold)", arguments: [household]) ?? 0
        }
    }

    /// A condition on `healthRecord`: it waits for Pl@ntNet.
    private static let healthWaits = "healthRecord.diagnosis IS NULL AND healthRecord.gaveUpAt IS NULL"
    /// A condition on `healthRecord` (unqualified columns): it waits, and its plant is in the household given as the argument.
    private static let healthWaitsInHousehold =
        "diagnosis IS NULL AND gaveUpAt IS NULL AND plantId IN (SELECT id FROM plant WHERE householdId = ?)"

    /// Claims a waiting record for sending, with the re-check queue's rule: a claim lasts `lease`, and only while the
    /// claiming process lives. Counts a try.
    /// - Returns: whether this caller holds the claim.
    public func claimHealthRecord(
        _ id: Int64, now: Date, lease: TimeInterval = 300, claimant: String = ProcessIdentity.current
    ) throws(StoreError) -> Bool {
        let household = try self.scope("claim a health record").household
        return try write("claim a health record") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT claimedUntil, claimedBy FROM healthRecord WHERE id = ? AND \(Self.healthWaitsInHousehold)
                """, arguments: [id, household]) else { return false }
            return try Self.takeLease(of: "healthRecord", id: id, held: row, now: now, lease: lease, claimant: claimant, db: db)
        }
    }

    /// Gives a claim back without counting the try (sending stopped before Pl@ntNet answered).
    public func releaseHealthRecord(_ id: Int64) throws(StoreError) {
        let household = try self.scope("release a health record").household
        try write("release a health record") { db in
            try db.execute(sql: """
                UPDATE healthRecord SET claimedUntil = NULL, claimedBy = NULL, attempts = max(attempts - 1, 0)
                WHERE id = ? AND \(Self.healthWaitsInHousehold)
                """, arguments: [id, household])
        }
    }

    /// Records that a try failed. The record gives up (stays in the history without a diagnosis, saying why) when
    /// `giveUp` is set or after ``HealthRecord/maximumAttempts`` tries; else it waits for the next run.
    /// - Returns: whether the record gave up; `nil` when it no longer waits (another process finished it).
    @discardableResult
    public func failHealthRecord(_ id: Int64, reason: String, giveUp: Bool = false, now: Date) throws(StoreError) -> Bool? {
        let household = try self.scope("record a failed diagnosis").household
        return try write("record a failed diagnosis") { db in
            try db.execute(sql: """
                UPDATE healthRecord SET claimedUntil = NULL, claimedBy = NULL, lastError = ?,
                    gaveUpAt = CASE WHEN ? OR attempts >= ? THEN ? ELSE NULL END
                WHERE id = ? AND \(Self.healthWaitsInHousehold)
                """, arguments: [String(reason.prefix(500)), giveUp, HealthRecord.maximumAttempts, now.roundedToMilliseconds, id, household])
            guard db.changesCount == 1 else { return nil }
            return try Bool.fetchOne(db, sql: "SELECT gaveUpAt IS NOT NULL FROM healthRecord WHERE id = ?", arguments: [id]) ?? false
        }
    }

    /// Fills Pl@ntNet's answer into a waiting record; the record stops waiting.
    /// - Returns: the record, or `nil` when it no longer waits (another process answered it first): nothing was written.
    public func completeHealthRecord(_ id: Int64, diagnosis: Diagnosis) throws(StoreError) -> HealthRecord? {
        let household = try self.scope("record a diagnosis").household
        let text = try DiagnosisColumn.encode(diagnosis)
        return try write("record a diagnosis") { db in
            try db.execute(sql: """
                UPDATE healthRecord SET diagnosis = ?, claimedUntil = NULL, claimedBy = NULL, lastError = NULL
                WHERE id = ? AND \(Self.healthWaitsInHousehold)
                """, arguments: [text, id, household])
            guard db.changesCount == 1 else { return nil }
            return try Self.healthRecords(where: "healthRecord.id = ?", [id], db: db).first
        }
    }

    static func healthRecords(plantId: Int64, db: Database) throws -> [HealthRecord] {
        try healthRecords(where: "healthRecord.plantId = ?", [plantId], db: db)
    }

    /// The records the condition selects (over `healthRecord` joined to `plant`), newest first, with their photos.
    static func healthRecords(where condition: String, _ arguments: StatementArguments, db: Database) throws -> [HealthRecord] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT healthRecord.* FROM healthRecord JOIN plant ON plant.id = healthRecord.plantId
            WHERE \(condition) ORDER BY healthRecord.recordedAt DESC, healthRecord.id DESC
            """, arguments: arguments)
        var photos: [Int64: [HealthRecordPhoto]] = [:]
        if !rows.isEmpty {
            let ids = rows.map { $0["id"] as Int64 }
            for row in try Row.fetchAll(db, sql: """
                SELECT recordId, photoSHA256, organ FROM healthRecordPhoto
                WHERE recordId IN (\(ids.map { _ in "?" }.joined(separator: ", "))) ORDER BY recordId, position
                """, arguments: StatementArguments(ids)) {
                photos[row["recordId"], default: []].append(HealthRecordPhoto(sha256: row["photoSHA256"], organ: row["organ"]))
            }
        }
        return try rows.map { row throws(StoreError) in
            let id: Int64 = row["id"]
            let diagnosis = try (row["diagnosis"] as String?).map { text throws(StoreError) in try DiagnosisColumn.decode(text, record: id) }
            let wait = (row["language"] as String?).map { language in
                HealthRecordWait(
                    language: language, attempts: row["attempts"], lastError: row["lastError"],
                    gaveUpAt: row["gaveUpAt"] == nil ? nil : row.timestamp("gaveUpAt")
                )
            }
            return HealthRecord(
                id: id, uuid: row["uuid"], plantId: row["plantId"], diagnosis: diagnosis, waiting: wait,
                photos: photos[id] ?? [], note: row["note"], recordedBy: row["recordedBy"], recordedAt: row.timestamp("recordedAt")
            )
        }
    }

    /// Records each photo (if new) and names it in the record at its position.
    static func insertHealthPhotos(_ photos: [(StoredPhoto, String)], recordId: Int64, db: Database) throws {
        for (position, (photo, organ)) in photos.enumerated() {
            try recordPhoto(photo, db: db)
            try db.execute(
                sql: "INSERT INTO healthRecordPhoto (recordId, position, photoSHA256, organ) VALUES (?, ?, ?, ?)",
                arguments: [recordId, position, photo.sha256, organ]
            )
        }
    }
}
