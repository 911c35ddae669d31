import Foundation
import PlantStore
import PostgresNIO

/// The Pl@ntNet quota and answer cache on PostgreSQL: what every replica must share. A reservation is one UPDATE that
/// re-checks its condition on the row's newest version (PostgreSQL's READ COMMITTED re-evaluates the WHERE after
/// waiting for a concurrent writer), so replicas racing for the last request never both get it.
extension PostgresStore: PlantNetStateStore {
    public func plantNetQuota(day: String, dailyLimit: Int, now: Date) async throws(StoreError) -> PlantNetQuotaRow {
        try await withConnection("read the Pl@ntNet quota") { connection in
            try await self.ensureQuotaDay(connection, day: day, dailyLimit: dailyLimit, now: now)
            return try await self.quotaRow(connection, day: day, now: now)
        }
    }

    public func reservePlantNetRequest(day: String, dailyLimit: Int, floor: Int, now: Date) async throws(StoreError)
        -> PlantNetQuotaRow? {
        try await withConnection("reserve a Pl@ntNet request") { connection in
            try await self.ensureQuotaDay(connection, day: day, dailyLimit: dailyLimit, now: now)
            let floor = max(0, floor)
            let rows = try await connection.query("""
                UPDATE plantnetQuota SET available = available - 1, spent = spent + 1, updatedAt = \(now)
                WHERE day = \(day)::date AND available > \(floor)
                  AND NOT EXISTS (SELECT 1 FROM plantnetQuota WHERE blockedUntil > \(now))
                RETURNING 1
                """, logger: self.logger)
            var took = false
            for try await _ in rows.decode(Int.self) { took = true }
            return took ? try await self.quotaRow(connection, day: day, now: now) : nil
        }
    }

    public func cancelPlantNetReservation(day: String, now: Date) async throws(StoreError) {
        try await withConnection("give back a Pl@ntNet request") { connection in
            _ = try await connection.query("""
                UPDATE plantnetQuota SET available = available + 1, spent = spent - 1, updatedAt = \(now)
                WHERE day = \(day)::date AND spent > 0 AND NOT EXISTS (SELECT 1 FROM plantnetQuota WHERE blockedUntil > \(now))
                """, logger: self.logger)
        }
    }

    public func reportPlantNetRemaining(_ remaining: Int, day: String, dailyLimit: Int, now: Date) async throws(StoreError)
        -> PlantNetQuotaRow {
        try await withConnection("record the Pl@ntNet quota") { connection in
            try await self.ensureQuotaDay(connection, day: day, dailyLimit: dailyLimit, now: now)
            let reported = max(0, remaining)
            try await connection.query("""
                UPDATE plantnetQuota
                SET available = CASE WHEN lastReported IS NULL THEN \(reported) ELSE least(available, \(reported)) END,
                    lastReported = \(reported), updatedAt = \(now)
                WHERE day = \(day)::date
                """, logger: self.logger)
            return try await self.quotaRow(connection, day: day, now: now)
        }
    }

    public func blockPlantNet(until: Date, day: String, dailyLimit: Int, now: Date) async throws(StoreError) -> PlantNetQuotaRow {
        try await withConnection("record that the Pl@ntNet quota is used up") { connection in
            try await self.ensureQuotaDay(connection, day: day, dailyLimit: dailyLimit, now: now)
            // Pl@ntNet's quota starts afresh when the block ends: until a report says otherwise, the day allows its limit.
            try await connection.query("""
                UPDATE plantnetQuota SET available = \(max(0, dailyLimit)), lastReported = NULL, blockedUntil = \(until),
                    updatedAt = \(now)
                WHERE day = \(day)::date
                """, logger: self.logger)
            return try await self.quotaRow(connection, day: day, now: now)
        }
    }

    public func cachedAnswers(project: String, language: String, organs: String, freshAfter: Date) async throws(StoreError)
        -> [CachedAnswerRow] {
        try await withConnection("read the identification cache") { connection in
            let rows = try await connection.query("""
                SELECT exactKey, project, language, organs, perceptualHashes, answer, storedAt, lastUsedAt, hits
                FROM plantnetCacheEntry
                WHERE project = \(project) AND language = \(language) AND organs = \(organs) AND storedAt > \(freshAfter)
                ORDER BY lastUsedAt DESC
                """, logger: self.logger)
            var found: [CachedAnswerRow] = []
            for try await (key, project, language, organs, hashes, answer, stored, used, hits)
                in rows.decode((String, String, String, String, String, String, Date, Date, Int).self) {
                found.append(CachedAnswerRow(
                    exactKey: key, project: project, language: language, organs: organs, perceptualHashes: hashes,
                    answer: answer, storedAt: stored, lastUsedAt: used, hits: hits
                ))
            }
            return found
        }
    }

    public func recordAnswerCacheUse(exactKey: String?, now: Date) async throws(StoreError) {
        try await withConnection("count a use of the identification cache") { connection in
            if let exactKey {
                _ = try await connection.query("""
                    UPDATE plantnetCacheEntry SET hits = hits + 1, lastUsedAt = greatest(\(now), storedAt)
                    WHERE exactKey = \(exactKey)
                    """, logger: self.logger)
            } else {
                _ = try await connection.query("""
                    INSERT INTO plantnetCacheCounter (name, value) VALUES ('misses', 1)
                    ON CONFLICT (name) DO UPDATE SET value = plantnetCacheCounter.value + 1
                    """, logger: self.logger)
            }
        }
    }

    public func storeCachedAnswer(_ row: CachedAnswerRow, capacity: Int, freshAfter: Date) async throws(StoreError) {
        try await withConnection("store an answer in the identification cache") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                let lastUsed = max(row.lastUsedAt, row.storedAt)
                try await connection.query("""
                    INSERT INTO plantnetCacheEntry
                        (exactKey, project, language, organs, perceptualHashes, answer, storedAt, lastUsedAt, hits)
                    VALUES (\(row.exactKey), \(row.project), \(row.language), \(row.organs), \(row.perceptualHashes),
                        \(row.answer), \(row.storedAt), \(lastUsed), \(row.hits))
                    ON CONFLICT (exactKey) DO UPDATE SET project = excluded.project, language = excluded.language,
                        organs = excluded.organs, perceptualHashes = excluded.perceptualHashes, answer = excluded.answer,
                        storedAt = excluded.storedAt, lastUsedAt = excluded.lastUsedAt
                    """, logger: self.logger)
                try await connection.query(
                    "DELETE FROM plantnetCacheEntry WHERE storedAt <= \(freshAfter)", logger: self.logger
                )
                let keep = max(1, capacity)
                try await connection.query("""
                    DELETE FROM plantnetCacheEntry WHERE exactKey IN (
                        SELECT exactKey FROM plantnetCacheEntry ORDER BY lastUsedAt DESC, exactKey OFFSET \(keep))
                    """, logger: self.logger)
            }
        }
    }

    public func answerCacheCounts(freshAfter: Date) async throws(StoreError) -> AnswerCacheCounts {
        try await withConnection("count the identification cache") { connection in
            var counts = AnswerCacheCounts()
            let rows = try await connection.query("""
                SELECT count(*) FILTER (WHERE storedAt > \(freshAfter)), count(*) FILTER (WHERE storedAt <= \(freshAfter)),
                    coalesce(sum(hits), 0)::bigint, min(storedAt) FILTER (WHERE storedAt > \(freshAfter)),
                    max(storedAt) FILTER (WHERE storedAt > \(freshAfter)),
                    coalesce((SELECT value FROM plantnetCacheCounter WHERE name = 'misses'), 0)::bigint
                FROM plantnetCacheEntry
                """, logger: self.logger)
            for try await (fresh, expired, hits, oldest, newest, misses)
                in rows.decode((Int, Int, Int, Date?, Date?, Int).self) {
                counts.entries = fresh
                counts.expired = expired
                counts.hits = hits
                counts.oldest = oldest
                counts.newest = newest
                counts.misses = misses
            }
            return counts
        }
    }

    public func clearAnswerCache() async throws(StoreError) -> Int {
        try await withConnection("clear the identification cache") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                let rows = try await connection.query("DELETE FROM plantnetCacheEntry RETURNING 1", logger: self.logger)
                var count = 0
                for try await _ in rows.decode(Int.self) { count += 1 }
                try await connection.query("DELETE FROM plantnetCacheCounter", logger: self.logger)
                return count
            }
        }
    }

    // MARK: - Rows

    private func ensureQuotaDay(_ connection: PostgresConnection, day: String, dailyLimit: Int, now: Date) async throws {
        try await connection.query("""
            INSERT INTO plantnetQuota (day, available, updatedAt) VALUES (\(day)::date, \(max(0, dailyLimit)), \(now))
            ON CONFLICT (day) DO NOTHING
            """, logger: logger)
    }

    private func quotaRow(_ connection: PostgresConnection, day: String, now: Date) async throws -> PlantNetQuotaRow {
        let rows = try await connection.query("""
            SELECT to_char(day, 'YYYY-MM-DD'), available, spent, lastReported,
                (SELECT max(blockedUntil) FROM plantnetQuota WHERE blockedUntil > \(now))
            FROM plantnetQuota WHERE day = \(day)::date
            """, logger: logger)
        for try await (day, available, spent, reported, blocked) in rows.decode((String, Int, Int, Int?, Date?).self) {
            return PlantNetQuotaRow(day: day, available: available, spent: spent, lastReported: reported, blockedUntil: blocked)
        }
        throw StoreError.database(operation: "read the Pl@ntNet quota", reason: "the row for \(day) is missing")
    }
}
