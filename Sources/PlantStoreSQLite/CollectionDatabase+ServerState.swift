import Foundation
import GRDB
import PlantStore

/// The server's shared state in SQLite: the anti-forgery secret, household settings, the calendar token and recent
/// uploads. Every process on the same file (and so every replica on a shared data directory) sees the same rows.
extension CollectionDatabase: ServerStateStore {
    public func serverSecret(named name: String, make: @Sendable () -> Data, now: Date) throws(StoreError) -> Data {
        try ServerStateRules.checkSecret(name: name)
        if let stored = try read("read the server secret", { db in try Self.secret(db, name: name) }) { return stored }
        let made = make()
        try ServerStateRules.checkSecret(name: name, value: made)
        return try write("store the server secret") { db in
            // The first insert wins; a process that lost the race reads the winner's bytes.
            try db.execute(
                sql: "INSERT INTO serverSecret (name, value, createdAt) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, made, now.roundedToMilliseconds]
            )
            guard let stored = try Self.secret(db, name: name) else {
                throw StoreError.database(operation: "store the server secret", reason: "the secret is missing after it was stored")
            }
            return stored
        }
    }

    private static func secret(_ db: Database, name: String) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT value FROM serverSecret WHERE name = ?", arguments: [name])
    }

    public func householdSettings(household: Int64) throws(StoreError) -> [HouseholdSettingKey: String] {
        try read("read the household's settings") { db in
            var settings: [HouseholdSettingKey: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT key, value FROM householdSetting WHERE householdId = ?", arguments: [household]
            ) {
                if let key = HouseholdSettingKey(rawValue: row[0]) { settings[key] = row[1] }
            }
            return settings
        }
    }

    public func setHouseholdSetting(_ key: HouseholdSettingKey, to value: String?, household: Int64, now: Date) throws(StoreError) {
        try write("store the household's setting") { db in
            if let value {
                try db.execute(sql: """
                    INSERT INTO householdSetting (householdId, key, value, updatedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (householdId, key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt
                    """, arguments: [household, key.rawValue, value, now.roundedToMilliseconds])
            } else {
                try db.execute(
                    sql: "DELETE FROM householdSetting WHERE householdId = ? AND key = ?", arguments: [household, key.rawValue]
                )
            }
        }
    }

    public func calendarToken(household: Int64) throws(StoreError) -> String? {
        try read("read the calendar token") { db in
            try String.fetchOne(db, sql: "SELECT calendarToken FROM household WHERE id = ?", arguments: [household])
        }
    }

    public func setCalendarToken(_ token: String?, household: Int64) throws(StoreError) {
        if let token { try ServerStateRules.checkCalendarToken(token) }
        try write("store the calendar token") { db in
            try db.execute(sql: "UPDATE household SET calendarToken = ? WHERE id = ?", arguments: [token, household])
            guard db.changesCount == 1 else { throw StoreError.invalid("There is no household \(household).") }
        }
    }

    public func household(calendarToken token: String) throws(StoreError) -> Int64? {
        try read("find the calendar token") { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM household WHERE calendarToken = ?", arguments: [token])
        }
    }

    @discardableResult
    public func saveUpload(_ upload: RecentUploadRow, keepPerSession: Int) throws(StoreError) -> [String] {
        try ServerStateRules.checkUpload(upload)
        let photos = try ServerStateRules.photosJSON(upload.photos)
        return try write("keep the recent upload") { db in
            try db.execute(sql: """
                INSERT INTO recentUpload
                    (id, householdId, sessionHash, photos, outcome, recheckIdentificationId, createdAt, expiresAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    upload.id, upload.householdId, upload.sessionHash, photos, upload.outcome, upload.recheckIdentificationId,
                    upload.createdAt.roundedToMilliseconds, upload.expiresAt.roundedToMilliseconds,
                ])
            let forgotten = try String.fetchAll(db, sql: """
                DELETE FROM recentUpload WHERE id IN (
                    SELECT id FROM recentUpload WHERE sessionHash = ? ORDER BY createdAt DESC, id DESC LIMIT -1 OFFSET ?)
                RETURNING photos
                """, arguments: [upload.sessionHash, max(1, keepPerSession)])
            return try Self.unnamed(db, ServerStateRules.photoHashes(ofForgotten: forgotten))
        }
    }

    public func upload(id: String, sessionHash: String, household: Int64, now: Date) throws(StoreError) -> RecentUploadRow? {
        try read("read the recent upload") { db in
            try Row.fetchOne(db, sql: """
                SELECT id, householdId, sessionHash, photos, outcome, recheckIdentificationId, createdAt, expiresAt
                FROM recentUpload WHERE id = ? AND sessionHash = ? AND householdId = ? AND expiresAt > ?
                """, arguments: [id, sessionHash, household, now]).map { row in
                RecentUploadRow(
                    id: row[0], householdId: row[1], sessionHash: row[2], photos: ServerStateRules.photos(fromJSON: row[3]),
                    outcome: row[4], recheckIdentificationId: row[5], createdAt: DatabaseTimestamp.date(row, 6),
                    expiresAt: DatabaseTimestamp.date(row, 7)
                )
            }
        }
    }

    public func purgeUploads(now: Date) throws(StoreError) -> [String] {
        try write("forget expired uploads") { db in
            let forgotten = try String.fetchAll(
                db, sql: "DELETE FROM recentUpload WHERE expiresAt <= ? RETURNING photos", arguments: [now]
            )
            return try Self.unnamed(db, ServerStateRules.photoHashes(ofForgotten: forgotten))
        }
    }

    /// Those of `hashes` no remaining upload names.
    private static func unnamed(_ db: Database, _ hashes: [String]) throws -> [String] {
        try hashes.filter { hash in
            try !(Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM recentUpload WHERE instr(photos, ?) > 0)", arguments: [hash]
            ) ?? false)
        }
    }
}
