import Foundation
import Logging
import PlantGuideCore
import PlantStore
import PostgresNIO

extension PostgresStore {
    /// Keeps a diagnosis in a plant's history, in one transaction: its photos are recorded (if new) and named by the
    /// record in the order given.
    public func saveHealthRecord(_ record: NewHealthRecord, plantId: Int64, now: Date) async throws(StoreError) -> HealthRecord {
        let record = try record.checked()
        let diagnosis = try record.diagnosis.map(DiagnosisColumn.encode)
        let language = diagnosis == nil ? record.language : nil
        let now = now.roundedToMilliseconds
        let scope = try scope("keep a health record")
        return try await inTransaction("keep a health record") { connection in
            // Locked like a photo's link, so removing the plant meanwhile either sees this record or waits for it.
            guard try await Self.lockPlant(plantId, household: scope.household, on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(plantId)
            }
            let uuid = UUID().uuidString.lowercased()
            let rows = try await connection.query("""
                INSERT INTO healthRecord (uuid, plantId, diagnosis, note, recordedBy, recordedAt, language)
                VALUES (\(uuid), \(plantId), \(diagnosis), \(record.note), \(scope.userName), \(PostgresInstant(now)), \(language))
                RETURNING id
                """, logger: self.logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            try await Self.insertHealthPhotos(
                record.photos.map { ($0.photo, $0.organ) }, recordId: id, on: connection, logger: self.logger
            )
            return HealthRecord(
                id: id, uuid: uuid, plantId: plantId, diagnosis: record.diagnosis,
                waiting: language.map { HealthRecordWait(language: $0) }, photos: record.photos.map { HealthRecordPhoto(sha256: $0.photo.sha256, organ: $0.organ) },
                note: record.note, recordedBy: scope.userName, recordedAt: now
            )
        }
    }

    /// A plant's health records, newest first.
    public func healthRecords(plantId: Int64) async throws(StoreError) -> [HealthRecord] {
        let household = try scope("read a plant's health records").household
        return try await inSnapshot("read a plant's health records") { connection in
            guard try await Self.plant(id: plantId, household: household, on: connection, logger: self.logger) != nil else {
                throw StoreError.plantNotFound(plantId)
            }
            return try await Self.healthRecords(plantId: plantId, on: connection, logger: self.logger)
        }
    }

    /// Removes one of a plant's health records; returns its photos nothing else uses any more, or `nil` when the plant
    /// has no such record.
    public func removeHealthRecord(id: Int64, ofPlant plantId: Int64) async throws(StoreError) -> [StoredPhoto]? {
        let household = try scope("remove a health record").household
        return try await inTransaction("remove a health record") { connection in
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(plantId)
            }
            var photos: [String] = []
            for try await sha256 in try await connection.query(
                "SELECT DISTINCT photoSHA256 FROM healthRecordPhoto WHERE recordId = \(id)", logger: self.logger
            ).decode(String.self) {
                photos.append(sha256)
            }
            var removed = false
            for try await _ in try await connection.query(
                "DELETE FROM healthRecord WHERE id = \(id) AND plantId = \(plantId) RETURNING id", logger: self.logger
            ).decode(Int64.self) {
                removed = true
            }
            guard removed else { return nil }
            return try await Self.releaseUnusedPhotos(photos, on: connection, logger: self.logger)
        }
    }

    // MARK: - Records that wait for Pl@ntNet

    /// The household's records that wait for Pl@ntNet, oldest first.
    public func waitingHealthRecords() async throws(StoreError) -> [HealthRecord] {
        let household = try scope("read the health records that wait").household
        return try await inSnapshot("read the health records that wait") { connection in
            try await Self.healthRecords(
                where: "p.householdId = \(household) AND hr.diagnosis IS NULL AND hr.gaveUpAt IS NULL", on: connection,
                logger: self.logger
            ).reversed()
        }
    }

    public func waitingHealthRecordCount() async throws(StoreError) -> Int {
        let waits = Self.waits(in: try scope("count the health records that wait").household)
        return try await withConnection("count the health records that wait") { connection in
            let rows = try await connection.query("SELECT count(*) FROM healthRecord WHERE \(unescaped: waits)", logger: self.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    /// A condition on `healthRecord` (unqualified columns): it waits, and its plant is in `household`.
    private static func waits(in household: Int64) -> String {
        "diagnosis IS NULL AND gaveUpAt IS NULL AND EXISTS (SELECT 1 FROM plant wp WHERE wp.id = healthRecord.plantId "
            + "AND wp.householdId = \(household))"
    }

    /// Claims a waiting record for sending (the re-check queue's lease rule: one statement, so of replicas racing only
    /// one wins, and a dead process's lease on this host ends at once); counts a try.
    public func claimHealthRecord(_ id: Int64, now: Date, lease: TimeInterval, claimant: String) async throws(StoreError) -> Bool {
        let waits = Self.waits(in: try scope("claim a health record").household)
        return try await inTransaction("claim a health record") { connection in
            try await self.takeLease(of: "healthRecord", id: id, where: waits, now: now, lease: lease, claimant: claimant, on: connection)
        }
    }

    /// Gives a claim back without counting the try.
    public func releaseHealthRecord(_ id: Int64) async throws(StoreError) {
        let waits = Self.waits(in: try scope("release a health record").household)
        try await inTransaction("release a health record") { connection in
            _ = try await connection.query("""
                UPDATE healthRecord SET claimedUntil = NULL, claimedBy = NULL, attempts = greatest(attempts - 1, 0)
                WHERE id = \(id) AND \(unescaped: waits)
                """, logger: self.logger)
        }
    }

    /// Records a failed try; the record gives up when told to or after ``HealthRecord/maximumAttempts`` tries.
    @discardableResult
    public func failHealthRecord(_ id: Int64, reason: String, giveUp: Bool, now: Date) async throws(StoreError) -> Bool? {
        let waits = Self.waits(in: try scope("record a failed diagnosis").household)
        let limit = HealthRecord.maximumAttempts, now = PostgresInstant(now.roundedToMilliseconds)
        return try await inTransaction("record a failed diagnosis") { connection in
            var gaveUp: Bool?
            for try await value in try await connection.query("""
                UPDATE healthRecord SET claimedUntil = NULL, claimedBy = NULL, lastError = \(String(reason.prefix(500))),
                    gaveUpAt = CASE WHEN \(giveUp) OR attempts >= \(limit) THEN \(now) ELSE NULL END
                WHERE id = \(id) AND \(unescaped: waits)
                RETURNING gaveUpAt IS NOT NULL
                """, logger: self.logger).decode(Bool.self) {
                gaveUp = value
            }
            return gaveUp
        }
    }

    /// Fills Pl@ntNet's answer into a waiting record; `nil` when it no longer waits.
    public func completeHealthRecord(_ id: Int64, diagnosis: Diagnosis) async throws(StoreError) -> HealthRecord? {
        let waits = Self.waits(in: try scope("record a diagnosis").household)
        let text = try DiagnosisColumn.encode(diagnosis)
        return try await inTransaction("record a diagnosis") { connection in
            let updated = try await self.returnsRow(connection.query("""
                UPDATE healthRecord SET diagnosis = \(text), claimedUntil = NULL, claimedBy = NULL, lastError = NULL
                WHERE id = \(id) AND \(unescaped: waits)
                RETURNING 1
                """, logger: self.logger))
            guard updated else { return nil }
            return try await Self.healthRecords(where: "hr.id = \(id)", on: connection, logger: self.logger).first
        }
    }

    static func healthRecords(plantId: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [HealthRecord] {
        try await healthRecords(where: "hr.plantId = \(plantId)", on: connection, logger: logger)
    }

    /// The records the condition selects (over `healthRecord hr` joined to `plant p`; integers written as literals),
    /// newest first, with their photos.
    static func healthRecords(where condition: String, on connection: PostgresConnection, logger: Logger) async throws
        -> [HealthRecord] {
        let rows = try await connection.query("""
            SELECT hr.id, hr.uuid, hr.plantId, hr.diagnosis, hr.note, hr.recordedBy, hr.recordedAt, hr.language, hr.attempts,
                hr.lastError, hr.gaveUpAt
            FROM healthRecord hr JOIN plant p ON p.id = hr.plantId
            WHERE \(unescaped: condition) ORDER BY hr.recordedAt DESC, hr.id DESC
            """, logger: logger)
        var found: [(Int64, String, Int64, String?, String?, String?, PostgresInstant, String?, Int, String?, PostgresInstant?)] = []
        for try await row in rows.decode(
            (Int64, String, Int64, String?, String?, String?, PostgresInstant, String?, Int, String?, PostgresInstant?).self
        ) {
            found.append(row)
        }
        guard !found.isEmpty else { return [] }
        let ids = found.map(\.0)
        var photos: [Int64: [HealthRecordPhoto]] = [:]
        let photoRows = try await connection.query("""
            SELECT recordId, photoSHA256, organ FROM healthRecordPhoto WHERE recordId = ANY(\(ids)) ORDER BY recordId, position
            """, logger: logger)
        for try await (recordId, sha256, organ) in photoRows.decode((Int64, String, String).self) {
            photos[recordId, default: []].append(HealthRecordPhoto(sha256: sha256, organ: organ))
        }
        return try found.map { row throws(StoreError) in
            HealthRecord(
                id: row.0, uuid: row.1, plantId: row.2,
                diagnosis: try row.3.map { text throws(StoreError) in try DiagnosisColumn.decode(text, record: row.0) },
                waiting: row.7.map { HealthRecordWait(language: $0, attempts: row.8, lastError: row.9, gaveUpAt: row.10?.date) },
                photos: photos[row.0] ?? [], note: row.4, recordedBy: row.5, recordedAt: row.6.date
            )
        }
    }

    /// Records each photo (if new) and names it in the record at its position.
    static func insertHealthPhotos(
        _ photos: [(StoredPhoto, String)], recordId: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        for (position, (photo, organ)) in photos.enumerated() {
            try await recordPhoto(photo, on: connection, logger: logger)
            try await connection.query("""
                INSERT INTO healthRecordPhoto (recordId, position, photoSHA256, organ)
                VALUES (\(recordId), \(position), \(photo.sha256), \(organ))
                """, logger: logger)
        }
    }
}
