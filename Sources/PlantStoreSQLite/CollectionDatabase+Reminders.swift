import Foundation
import GRDB
import PlantGuideCore
import PlantStore

/// Reminder channels and their digests' claim rows in SQLite. A claim is one `INSERT … ON CONFLICT DO NOTHING` or one
/// conditional `UPDATE` in a write transaction, so two processes on the same file never both send a digest.
extension CollectionDatabase: ReminderStore {
    /// A channel's columns with its member's name.
    private static let channelQuery = """
        SELECT reminderChannel.*, appUser.name AS memberName FROM reminderChannel
        LEFT JOIN appUser ON appUser.id = reminderChannel.memberId
        """

    public func reminderChannels(household: Int64) throws(StoreError) -> [ReminderChannel] {
        try read("read the reminder channels") { db in
            try Row.fetchAll(
                db, sql: "\(Self.channelQuery) WHERE reminderChannel.householdId = ? ORDER BY reminderChannel.id",
                arguments: [household]
            ).map(Self.channel)
        }
    }

    public func enabledReminderChannels() throws(StoreError) -> [ReminderChannel] {
        try read("read the reminder channels") { db in
            try Row.fetchAll(
                db, sql: "\(Self.channelQuery) WHERE reminderChannel.enabled = 1 ORDER BY reminderChannel.id"
            ).map(Self.channel)
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
            if let member = channel.member {
                try Self.requireMember(member, of: household, db)
            }
            try db.execute(sql: """
                INSERT INTO reminderChannel (householdId, kind, target, token, minuteOfDay, enabled, createdAt, memberId,
                    quietFrom, quietUntil)
                VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
                """, arguments: [household, channel.kind.rawValue, channel.target, channel.token, channel.minuteOfDay,
                                 now.roundedToMilliseconds, channel.member, channel.quietHours?.from,
                                 channel.quietHours?.until])
            let id = db.lastInsertedRowID
            guard let row = try Row.fetchOne(
                db, sql: "\(Self.channelQuery) WHERE reminderChannel.id = ?", arguments: [id]
            ) else {
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

    public func setReminderSchedule(
        member: Int64?, household: Int64, minuteOfDay: Int, quietHours: QuietHours?
    ) throws(StoreError) -> Int {
        try ReminderRules.check(minuteOfDay: minuteOfDay, quietHours: quietHours)
        return try write("change the reminder hour") { db in
            try db.execute(sql: """
                UPDATE reminderChannel SET minuteOfDay = ?, quietFrom = ?, quietUntil = ?
                WHERE memberId IS ? AND householdId = ?
                """, arguments: [minuteOfDay, quietHours?.from, quietHours?.until, member, household])
            return db.changesCount
        }
    }

    public func careAssignments(household: Int64) throws(StoreError) -> CareAssignments {
        try read("read who looks after the plants") { db in
            let members = try Row.fetchAll(
                db, sql: "SELECT id, name FROM appUser WHERE householdId = ? ORDER BY id", arguments: [household]
            ).map { HouseholdMember(id: $0["id"], name: $0["name"]) }
            var plants: [Int64: CareAssignee] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT careAssignment.* FROM careAssignment JOIN plant ON plant.id = careAssignment.plantId
                WHERE plant.householdId = ?
                """, arguments: [household]) {
                let member: Int64? = row["memberId"]
                plants[row["plantId"]] = member.map(CareAssignee.member) ?? .turns
            }
            var lastDoneBy: [Int64: [CareTask: String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT careEvent.plantId, careEvent.task, careEvent.recordedBy FROM careEvent
                JOIN careAssignment ON careAssignment.plantId = careEvent.plantId AND careAssignment.turns = 1
                JOIN plant ON plant.id = careEvent.plantId AND plant.householdId = ?
                WHERE careEvent.soil IS NULL AND careEvent.recordedBy IS NOT NULL
                ORDER BY careEvent.day, careEvent.id
                """, arguments: [household]) {
                guard let task = CareTask(rawValue: row["task"]) else { continue }
                lastDoneBy[row["plantId"], default: [:]][task] = row["recordedBy"]
            }
            return CareAssignments(members: members, plants: plants, lastDoneBy: lastDoneBy)
        }
    }

    public func setCareAssignment(plant: Int64, household: Int64, to assignee: CareAssignee?) throws(StoreError) {
        try write("assign the plant") { db in
            guard try Int64.fetchOne(
                db, sql: "SELECT householdId FROM plant WHERE id = ?", arguments: [plant]
            ) == household else { throw StoreError.plantNotFound(plant) }
            switch assignee {
            case nil:
                try db.execute(sql: "DELETE FROM careAssignment WHERE plantId = ?", arguments: [plant])
            case .member(let member)?:
                try Self.requireMember(member, of: household, db)
                try db.execute(sql: """
                    INSERT INTO careAssignment (plantId, memberId, turns) VALUES (?, ?, 0)
                    ON CONFLICT (plantId) DO UPDATE SET memberId = excluded.memberId, turns = 0
                    """, arguments: [plant, member])
            case .turns?:
                try db.execute(sql: """
                    INSERT INTO careAssignment (plantId, memberId, turns) VALUES (?, NULL, 1)
                    ON CONFLICT (plantId) DO UPDATE SET memberId = NULL, turns = 1
                    """, arguments: [plant])
            }
        }
    }

    private static func requireMember(_ member: Int64, of household: Int64, _ db: Database) throws {
        guard try Int64.fetchOne(db, sql: "SELECT householdId FROM appUser WHERE id = ?", arguments: [member]) == household else {
            throw StoreError.invalid("That account is not a member of this household.")
        }
    }

    private static func channel(_ row: Row) throws -> ReminderChannel {
        guard let kind = ReminderChannelKind(rawValue: row["kind"]) else {
            throw StoreError.database(operation: "read the reminder channels", reason: "unknown kind '\(row["kind"] as String)'")
        }
        let quietFrom: Int? = row["quietFrom"], quietUntil: Int? = row["quietUntil"]
        return ReminderChannel(
            id: row["id"], household: row["householdId"], kind: kind, target: row["target"], token: row["token"],
            minuteOfDay: row["minuteOfDay"], enabled: row["enabled"], note: row["note"], createdAt: row["createdAt"],
            member: row["memberId"], memberName: row["memberName"],
            quietHours: quietFrom.flatMap { from in quietUntil.map { QuietHours(from: from, until: $0) } }
        )
    }
}
