import Foundation
import GRDB
import PlantGuideCore

/// Reminder channels and their digests' claim rows in SQLite. A claim is one `INSERT … ON CONFLICT DO NOTHING` or one
/// conditional `UPDATE` in a write transaction, so two processes on the same file never both send a digest.
extension CollectionDatabase: ReminderStore {
    public func reminderChannels(household: Int64) throws(StoreError) -> [ReminderChannel] {
        try read("read the reminder channels") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM reminderChannel WHERE householdId = ? ORDER BY id", arguments: [household]
            ).map(Self.channel)
        }
    }

    public func enabledReminderChannels() throws(StoreError) -> [ReminderChannel] {
        try read("read the reminder channels") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM reminderChannel WHERE enabled = 1 ORDER BY id").map(Self.channel)
        }
    }

    public func addReminderChannel(_ channel: NewReminderChannel, household: Int64, now: Date) throws(StoreError) -> ReminderChannel {
        try ReminderRules.check(channel)
        return try write("add the reminder channel") { db in
            let count = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM reminderChannel WHERE householdId = ?", arguments: [household]
            ) ?? 0
            guard count < ReminderRules.maximumChannels else {
                throw StoreError.invalid("A household has at most \(ReminderRules.maximumChannels) reminder channels.")
            }
            try db.execute(sql: """
                INSERT INTO reminderChannel (householdId, kind, target, token, minuteOfDay, enabled, createdAt)
                VALUES (?, ?, ?, ?, ?, 1, ?)
                """, arguments: [household, channel.kind.rawValue, channel.target, channel.token, channel.minuteOfDay,
                                 now.roundedToMilliseconds])
            let id = db.lastInsertedRowID
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM reminderChannel WHERE id = ?", arguments: [id]) else {
                throw StoreError.database(operation: "add the reminder channel", reason: "the channel is missing after it was added")
            }
            return try Self.channel(row)
        }
    }

    public func removeReminderChannel(id: Int64, household: Int64) throws(StoreError) -> Bool {
        try write("remove the reminder channel") { db in
            try db.execute(
                sql: "DELETE FROM reminderChannel WHERE id = ? AND householdId = ?", arguments: [id, household]
            )
            return db.changesCount == 1
        }
    }

    public func setReminderChannel(id: Int64, enabled: Bool, note: String?) throws(StoreError) {
        try write("change the reminder channel") { db in
            try db.execute(
                sql: "UPDATE reminderChannel SET enabled = ?, note = ? WHERE id = ?",
                arguments: [enabled, ReminderRules.note(note), id]
            )
        }
    }

    public func claimReminderDigest(channel: Int64, day: CalendarDay, now: Date, lease: TimeInterval) throws(StoreError) -> Int? {
        let stamp = now.roundedToMilliseconds, until = now.addingTimeInterval(lease).roundedToMilliseconds
        return try write("claim the reminder digest") { db in
            try db.execute(sql: """
                INSERT INTO reminderDigest (channelId, day, attempts, claimedAt, retryAt) VALUES (?, ?, 1, ?, ?)
                ON CONFLICT (channelId, day) DO NOTHING
                """, arguments: [channel, day.description, stamp, until])
            if db.changesCount == 1 { return 1 }
            try db.execute(sql: """
                UPDATE reminderDigest SET attempts = attempts + 1, claimedAt = ?, retryAt = ?
                WHERE channelId = ? AND day = ? AND sentAt IS NULL AND retryAt IS NOT NULL AND retryAt <= ?
                """, arguments: [stamp, until, channel, day.description, stamp])
            guard db.changesCount == 1 else { return nil }
            return try Int.fetchOne(
                db, sql: "SELECT attempts FROM reminderDigest WHERE channelId = ? AND day = ?",
                arguments: [channel, day.description]
            )
        }
    }

    @discardableResult
    public func finishReminderDigest(
        channel: Int64, day: CalendarDay, attempt: Int, outcome: ReminderDigestOutcome, now: Date
    ) throws(StoreError) -> Bool {
        let stamp = now.roundedToMilliseconds
        return try write("record the reminder digest") { db in
            switch outcome {
            case .sent(let tasks):
                try db.execute(sql: """
                    UPDATE reminderDigest SET sentAt = ?, tasks = ?, retryAt = NULL, lastError = NULL
                    WHERE channelId = ? AND day = ? AND attempts = ?
                    """, arguments: [stamp, tasks, channel, day.description, attempt])
            case .nothingDue:
                try db.execute(sql: """
                    UPDATE reminderDigest SET sentAt = ?, tasks = 0, retryAt = NULL
                    WHERE channelId = ? AND day = ? AND attempts = ?
                    """, arguments: [stamp, channel, day.description, attempt])
            case .failed(let reason, let retryAt):
                try db.execute(sql: """
                    UPDATE reminderDigest SET lastError = ?, retryAt = ? WHERE channelId = ? AND day = ? AND attempts = ?
                    """, arguments: [ReminderRules.note(reason), retryAt?.roundedToMilliseconds, channel, day.description, attempt])
            }
            return db.changesCount > 0
        }
    }

    public func reminderDigests(channel: Int64, limit: Int) throws(StoreError) -> [ReminderDigestRecord] {
        try read("read the reminder digests") { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM reminderDigest WHERE channelId = ? ORDER BY day DESC LIMIT ?
                """, arguments: [channel, max(0, limit)]).map { row in
                guard let day = CalendarDay(row["day"] as String) else {
                    throw StoreError.database(operation: "read the reminder digests", reason: "a day is not a date")
                }
                return ReminderDigestRecord(
                    channel: row["channelId"], day: day, attempts: row["attempts"], claimedAt: row["claimedAt"],
                    sentAt: row["sentAt"], tasks: row["tasks"], lastError: row["lastError"], retryAt: row["retryAt"]
                )
            }
        }
    }

    private static func channel(_ row: Row) throws -> ReminderChannel {
        guard let kind = ReminderChannelKind(rawValue: row["kind"]) else {
            throw StoreError.database(operation: "read the reminder channels", reason: "unknown kind '\(row["kind"] as String)'")
        }
        return ReminderChannel(
            id: row["id"], household: row["householdId"], kind: kind, target: row["target"], token: row["token"],
            minuteOfDay: row["minuteOfDay"], enabled: row["enabled"], note: row["note"], createdAt: row["createdAt"]
        )
    }
}
