import Foundation
import GRDB
import PlantGuideCore

extension CollectionDatabase {
    /// Keeps a diagnosis in a plant's history, in one transaction: its photos are recorded (if new) and named by the
    /// record in the order given.
    @discardableResult
    public func saveHealthRecord(_ record: NewHealthRecord, plantId: Int64, now: Date) throws(StoreError) -> HealthRecord {
        let record = try record.checked()
        let diagnosis = try DiagnosisColumn.encode(record.diagnosis)
        let now = now.roundedToMilliseconds
        let scope = try self.scope("keep a health record")
        return try write("keep a health record") { db in
            guard try Self.plantExists(plantId, in: scope.household, db: db) else { throw StoreError.plantNotFound(plantId) }
            let uuid = UUID().uuidString.lowercased()
            try db.execute(
                sql: """
                    INSERT INTO healthRecord (uuid, plantId, diagnosis, note, recordedBy, recordedAt) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [uuid, plantId, diagnosis, record.note, scope.userName, now]
            )
            let id = db.lastInsertedRowID
            try Self.insertHealthPhotos(record.photos.map { ($0.photo, $0.organ) }, recordId: id, db: db)
            return HealthRecord(
                id: id, uuid: uuid, plantId: plantId, diagnosis: record.diagnosis,
                photos: record.photos.map { HealthRecordPhoto(sha256: $0.photo.sha256, organ: $0.organ) },
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
            return HealthRecord(
                id: id, uuid: row["uuid"], plantId: row["plantId"],
                diagnosis: try DiagnosisColumn.decode(row["diagnosis"], record: id), photos: photos[id] ?? [],
                note: row["note"], recordedBy: row["recordedBy"], recordedAt: row.timestamp("recordedAt")
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
