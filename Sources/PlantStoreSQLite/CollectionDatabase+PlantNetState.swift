import Foundation
import GRDB
import PlantStore

extension CollectionDatabase: PlantNetStateStore {
    public func plantNetQuota(day: String, dailyLimit: Int, now: Date) throws(StoreError) -> PlantNetQuotaRow {
        try write("read the Pl@ntNet quota") { db in
            try Self.ensureQuotaDay(db, day: day, dailyLimit: dailyLimit, now: now)
            return try Self.quotaRow(db, day: day, now: now)
        }
    }

    public func reservePlantNetRequest(day: String, dailyLimit: Int, floor: Int, now: Date) throws(StoreError)
        -> PlantNetQuotaRow? {
        try write("reserve a Pl@ntNet request") { db in
            try Self.ensureQuotaDay(db, day: day, dailyLimit: dailyLimit, now: now)
            // One statement decides: SQLite runs one writer at a time, so two callers cannot both take the last one.
            try db.execute(sql: """
                UPDATE plantnetQuota SET available = available - 1, spent = spent + 1, updatedAt = ?
                WHERE day = ? AND available > ?
                  AND NOT EXISTS (SELECT 1 FROM plantnetQuota WHERE blockedUntil > ?)
                """, arguments: [now, day, max(0, floor), now])
            guard db.changesCount == 1 else { return nil }
            return try Self.quotaRow(db, day: day, now: now)
        }
    }

    public func cancelPlantNetReservation(day: String, now: Date) throws(StoreError) {
        try write("give back a Pl@ntNet request") { db in
            try db.execute(sql: """
                UPDATE plantnetQuota SET available = available + 1, spent = spent - 1, updatedAt = ?
                WHERE day = ? AND spent > 0 AND NOT EXISTS (SELECT 1 FROM plantnetQuota WHERE blockedUntil > ?)
                """, arguments: [now, day, now])
        }
    }

    public func reportPlantNetRemaining(_ remaining: Int, day: String, dailyLimit: Int, now: Date) throws(StoreError)
        -> PlantNetQuotaRow {
        try write("record the Pl@ntNet quota") { db in
            try Self.ensureQuotaDay(db, day: day, dailyLimit: dailyLimit, now: now)
            let reported = max(0, remaining)
            try db.execute(sql: """
                UPDATE plantnetQuota
                SET available = CASE WHEN lastReported IS NULL THEN ? ELSE min(available, ?) END, lastReported = ?, updatedAt = ?
                WHERE day = ?
                """, arguments: [reported, reported, reported, now, day])
            return try Self.quotaRow(db, day: day, now: now)
        }
    }

    public func blockPlantNet(until: Date, day: String, dailyLimit: Int, now: Date) throws(StoreError) -> PlantNetQuotaRow {
        try write("record that the Pl@ntNet quota is used up") { db in
            try Self.ensureQuotaDay(db, day: day, dailyLimit: dailyLimit, now: now)
            // Pl@ntNet's quota starts afresh when the block ends: until a report says otherwise, the day allows its limit.
            try db.execute(sql: """
                UPDATE plantnetQuota SET available = ?, lastReported = NULL, blockedUntil = ?, updatedAt = ? WHERE day = ?
                """, arguments: [max(0, dailyLimit), until, now, day])
            return try Self.quotaRow(db, day: day, now: now)
        }
    }

    public func cachedAnswers(project: String, language: String, organs: String, freshAfter: Date) throws(StoreError)
        -> [CachedAnswerRow] {
        try read("read the identification cache") { db in
            try Row.fetchAll(db, sql: """
                SELECT exactKey, project, language, organs, perceptualHashes, answer, storedAt, lastUsedAt, hits
                FROM plantnetCacheEntry WHERE project = ? AND language = ? AND organs = ? AND storedAt > ?
                ORDER BY lastUsedAt DESC
                """, arguments: [project, language, organs, freshAfter]).map(Self.cachedAnswer)
        }
    }

    public func recordAnswerCacheUse(exactKey: String?, now: Date) throws(StoreError) {
        try write("count a use of the identification cache") { db in
            if let exactKey {
                try db.execute(
                    sql: "UPDATE plantnetCacheEntry SET hits = hits + 1, lastUsedAt = max(?, storedAt) WHERE exactKey = ?",
                    arguments: [now, exactKey]
                )
            } else {
                try db.execute(sql: """
                    INSERT INTO plantnetCacheCounter (name, value) VALUES ('misses', 1)
                    ON CONFLICT (name) DO UPDATE SET value = value + 1
                    """)
            }
        }
    }

    public func storeCachedAnswer(_ row: CachedAnswerRow, capacity: Int, freshAfter: Date) throws(StoreError) {
        try write("store an answer in the identification cache") { db in
            try db.execute(sql: """
                INSERT INTO plantnetCacheEntry
                    (exactKey, project, language, organs, perceptualHashes, answer, storedAt, lastUsedAt, hits)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (exactKey) DO UPDATE SET project = excluded.project, language = excluded.language,
                    organs = excluded.organs, perceptualHashes = excluded.perceptualHashes, answer = excluded.answer,
                    storedAt = excluded.storedAt, lastUsedAt = excluded.lastUsedAt
                """, arguments: [
                    row.exactKey, row.project, row.language, row.organs, row.perceptualHashes, row.answer, row.storedAt,
                    max(row.lastUsedAt, row.storedAt), row.hits,
                ])
            try db.execute(sql: "DELETE FROM plantnetCacheEntry WHERE storedAt <= ?", arguments: [freshAfter])
            try db.execute(sql: """
                DELETE FROM plantnetCacheEntry WHERE exactKey IN (
                    SELECT exactKey FROM plantnetCacheEntry ORDER BY lastUsedAt DESC, exactKey LIMIT -1 OFFSET ?)
                """, arguments: [max(1, capacity)])
        }
    }

    public func answerCacheCounts(freshAfter: Date) throws(StoreError) -> AnswerCacheCounts {
        try read("count the identification cache") { db in
            var counts = AnswerCacheCounts()
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*) FILTER (WHERE storedAt > ?), count(*) FILTER (WHERE storedAt <= ?), coalesce(sum(hits), 0),
                    min(storedAt) FILTER (WHERE storedAt > ?), max(storedAt) FILTER (WHERE storedAt > ?)
                FROM plantnetCacheEntry
                """, arguments: [freshAfter, freshAfter, freshAfter, freshAfter])
            if let row {
                counts.entries = row[0]
                counts.expired = row[1]
                counts.hits = row[2]
                counts.oldest = row[3] == nil ? nil : DatabaseTimestamp.date(row, 3)
                counts.newest = row[4] == nil ? nil : DatabaseTimestamp.date(row, 4)
            }
            counts.misses = try Int.fetchOne(db, sql: "SELECT value FROM plantnetCacheCounter WHERE name = 'misses'") ?? 0
            return counts
        }
    }

    public func clearAnswerCache() throws(StoreError) -> Int {
        try write("clear the identification cache") { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM plantnetCacheEntry") ?? 0
            try db.execute(sql: "DELETE FROM plantnetCacheEntry; DELETE FROM plantnetCacheCounter")
            return count
        }
    }

    // MARK: - Rows

    private static func ensureQuotaDay(_ db: Database, day: String, dailyLimit: Int, now: Date) throws {
        try db.execute(
            sql: "INSERT INTO plantnetQuota (day, available, updatedAt) VALUES (?, ?, ?) ON CONFLICT (day) DO NOTHING",
            arguments: [day, max(0, dailyLimit), now]
        )
    }

    private static func quotaRow(_ db: Database, day: String, now: Date) throws -> PlantNetQuotaRow {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT day, available, spent, lastReported,
                (SELECT max(blockedUntil) FROM plantnetQuota WHERE blockedUntil > ?) AS blockedUntil
            FROM plantnetQuota WHERE day = ?
            """, arguments: [now, day])
        else { throw StoreError.database(operation: "read the Pl@ntNet quota", reason: "the row for \(day) is missing") }
        return PlantNetQuotaRow(
            day: row[0], available: row[1], spent: row[2], lastReported: row[3],
            blockedUntil: row[4] == nil ? nil : DatabaseTimestamp.date(row, 4)
        )
    }

    private static func cachedAnswer(_ row: Row) -> CachedAnswerRow {
        CachedAnswerRow(
            exactKey: row[0], project: row[1], language: row[2], organs: row[3], perceptualHashes: row[4], answer: row[5],
            storedAt: DatabaseTimestamp.date(row, 6), lastUsedAt: DatabaseTimestamp.date(row, 7), hits: row[8]
        )
    }
}
