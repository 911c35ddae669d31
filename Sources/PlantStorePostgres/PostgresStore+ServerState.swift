import Foundation
import PlantStore
import PostgresNIO

/// The server's shared state on PostgreSQL, with the rules of the SQLite store. The secret is made with one
/// `INSERT … ON CONFLICT DO NOTHING` and read back, so replicas starting at once agree on it; a purge deletes with
/// `RETURNING`, so two replicas purging at once never both report the same photos.
extension PostgresStore: ServerStateStore {
    public func serverSecret(named name: String, make: @Sendable () -> Data, now: Date) async throws(StoreError) -> Data {
        try ServerStateRules.checkSecret(name: name)
        if let stored = try await withConnection("read the server secret", { connection in
            try await self.secret(connection, name: name)
        }) {
            return stored
        }
        let made = make()
        try ServerStateRules.checkSecret(name: name, value: made)
        let stamp = now.roundedToMilliseconds
        return try await withConnection("store the server secret") { connection in
            // The first insert wins; a replica that lost the race reads the winner's bytes.
            try await connection.query("""
                INSERT INTO serverSecret (name, value, createdAt) VALUES (\(name), \(made), \(stamp))
                ON CONFLICT (name) DO NOTHING
                """, logger: self.logger)
            guard let stored = try await self.secret(connection, name: name) else {
                throw StoreError.database(operation: "store the server secret", reason: "the secret is missing after it was stored")
            }
            return stored
        }
    }

    private func secret(_ connection: PostgresConnection, name: String) async throws -> Data? {
        let rows = try await connection.query("SELECT value FROM serverSecret WHERE name = \(name)", logger: logger)
        var found: Data?
        for try await value in rows.decode(Data.self) { found = value }
        return found
    }

    public func householdSettings(household: Int64) async throws(StoreError) -> [HouseholdSettingKey: String] {
        try await withConnection("read the household's settings") { connection in
            let rows = try await connection.query(
                "SELECT key, value FROM householdSetting WHERE householdId = \(household)", logger: self.logger
            )
            var settings: [HouseholdSettingKey: String] = [:]
            for try await (key, value) in rows.decode((String, String).self) {
                if let key = HouseholdSettingKey(rawValue: key) { settings[key] = value }
            }
            return settings
        }
    }

    public func setHouseholdSetting(
        _ key: HouseholdSettingKey, to value: String?, household: Int64, now: Date
    ) async throws(StoreError) {
        let stamp = now.roundedToMilliseconds
        try await withConnection("store the household's setting") { connection in
            if let value {
                _ = try await connection.query("""
                    INSERT INTO householdSetting (householdId, key, value, updatedAt) VALUES (\(household), \(key.rawValue), \(value), \(stamp))
                    ON CONFLICT (householdId, key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt
                    """, logger: self.logger)
            } else {
                _ = try await connection.query(
                    "DELETE FROM householdSetting WHERE householdId = \(household) AND key = \(key.rawValue)", logger: self.logger
                )
            }
        }
    }

    public func calendarToken(household: Int64) async throws(StoreError) -> String? {
        try await withConnection("read the calendar token") { connection in
            let rows = try await connection.query(
                "SELECT calendarToken FROM household WHERE id = \(household)", logger: self.logger
            )
            var token: String?
            for try await value in rows.decode(String?.self) { token = value }
            return token
        }
    }

    public func setCalendarToken(_ token: String?, household: Int64) async throws(StoreError) {
        if let token { try ServerStateRules.checkCalendarToken(token) }
        try await withConnection("store the calendar token") { connection in
            let rows = try await connection.query(
                "UPDATE household SET calendarToken = \(token) WHERE id = \(household) RETURNING id", logger: self.logger
            )
            var updated = false
            for try await _ in rows.decode(Int64.self) { updated = true }
            guard updated else { throw StoreError.invalid("There is no household \(household).") }
        }
    }

    public func household(calendarToken token: String) async throws(StoreError) -> Int64? {
        try await withConnection("find the calendar token") { connection in
            let rows = try await connection.query(
                "SELECT id FROM household WHERE calendarToken = \(token)", logger: self.logger
            )
            var household: Int64?
            for try await id in rows.decode(Int64.self) { household = id }
            return household
        }
    }

    @discardableResult
    public func saveUpload(_ upload: RecentUploadRow, keepPerSession: Int) async throws(StoreError) -> [String] {
        try ServerStateRules.checkUpload(upload)
        let photos = try ServerStateRules.photosJSON(upload.photos)
        let created = upload.createdAt.roundedToMilliseconds
        let expires = upload.expiresAt.roundedToMilliseconds
        let keep = max(1, keepPerSession)
        return try await withConnection("keep the recent upload") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                try await connection.query("""
                    INSERT INTO recentUpload
                        (id, householdId, sessionHash, photos, outcome, recheckIdentificationId, createdAt, expiresAt)
                    VALUES (\(upload.id), \(upload.householdId), \(upload.sessionHash), \(photos), \(upload.outcome),
                        \(upload.recheckIdentificationId), \(created), \(expires))
                    """, logger: self.logger)
                let rows = try await connection.query("""
                    DELETE FROM recentUpload WHERE id IN (
                        SELECT id FROM recentUpload WHERE sessionHash = \(upload.sessionHash)
                        ORDER BY createdAt DESC, id DESC OFFSET \(keep))
                    RETURNING photos
                    """, logger: self.logger)
                var forgotten: [String] = []
                for try await value in rows.decode(String.self) { forgotten.append(value) }
                return try await self.unnamed(connection, ServerStateRules.photoHashes(ofForgotten: forgotten))
            }
        }
    }

    public func upload(id: String, sessionHash: String, household: Int64, now: Date) async throws(StoreError) -> RecentUploadRow? {
        try await withConnection("read the recent upload") { connection in
            let rows = try await connection.query("""
                SELECT id, householdId, sessionHash, photos, outcome, recheckIdentificationId, createdAt, expiresAt
                FROM recentUpload
                WHERE id = \(id) AND sessionHash = \(sessionHash) AND householdId = \(household) AND expiresAt > \(now)
                """, logger: self.logger)
            var found: RecentUploadRow?
            for try await (id, household, session, photos, outcome, recheck, created, expires)
                in rows.decode((String, Int64, String, String, String, Int64?, Date, Date).self) {
                found = RecentUploadRow(
                    id: id, householdId: household, sessionHash: session, photos: ServerStateRules.photos(fromJSON: photos),
                    outcome: outcome, recheckIdentificationId: recheck, createdAt: created, expiresAt: expires
                )
            }
            return found
        }
    }

    public func purgeUploads(now: Date) async throws(StoreError) -> [String] {
        try await withConnection("forget expired uploads") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                let rows = try await connection.query(
                    "DELETE FROM recentUpload WHERE expiresAt <= \(now) RETURNING photos", logger: self.logger
                )
                var forgotten: [String] = []
                for try await value in rows.decode(String.self) { forgotten.append(value) }
                return try await self.unnamed(connection, ServerStateRules.photoHashes(ofForgotten: forgotten))
            }
        }
    }

    /// Those of `hashes` no remaining upload names.
    private func unnamed(_ connection: PostgresConnection, _ hashes: [String]) async throws -> [String] {
        var unnamed: [String] = []
        for hash in hashes {
            let rows = try await connection.query(
                "SELECT EXISTS (SELECT 1 FROM recentUpload WHERE strpos(photos, \(hash)) > 0)", logger: logger
            )
            var named = false
            for try await value in rows.decode(Bool.self) { named = value }
            if !named { unnamed.append(hash) }
        }
        return unnamed
    }
}
