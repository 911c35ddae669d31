import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Reminder channels and their digests' claim rows on PostgreSQL, with the rules of the SQLite store. A claim is one
/// `INSERT … ON CONFLICT DO NOTHING RETURNING` or one conditional `UPDATE … RETURNING`: PostgreSQL re-checks the
/// condition of a row another transaction just changed, so of several replicas claiming at once exactly one wins.
extension PostgresStore: ReminderStore {
    private static let channelColumns =
        "id, householdId, kind, target, token, minuteOfDay, enabled, note, createdAt, memberId, quietFrom, quietUntil, "
        + "(SELECT name FROM appUser WHERE appUser.id = memberId)"

    public func reminderChannels(household: Int64) async throws(StoreError) -> [ReminderChannel] {
        try await withConnection("read the reminder channels") { connection in
            let rows = try await connection.query(
                "SELECT \(unescaped: Self.channelColumns) FROM reminderChannel WHERE householdId = \(household) ORDER BY id",
                logger: self.logger
            )
            return try await Self.channels(rows)
        }
    }

    public func enabledReminderChannels() async throws(StoreError) -> [ReminderChannel] {
        try await withConnection("read the reminder channels") { connection in
            let rows = try await connection.query(
                "SELECT \(unescaped: Self.channelColumns) FROM reminderChannel WHERE enabled ORDER BY id", logger: self.logger
            )
            return try await Self.channels(rows)
        }
    }

    public func addReminderChannel(
        _ channel: NewReminderChannel, household: Int64, now: Date
    ) async throws(StoreError) -> ReminderChannel {
        try ReminderRules.check(channel)
        let stamp = now.roundedToMilliseconds, limit = ReminderRules.maximumChannels
        return try await withConnection("add the reminder channel") { connection in
            // One statement: the count and the insert see the same snapshot; two adds racing past the limit by one is
            // harmless (the limit only keeps a household's list sane).
            if let member = channel.member { try await self.requireMember(member, of: household, connection) }
            let quietFrom = channel.quietHours?.from, quietUntil = channel.quietHours?.until
            let rows = try await connection.query("""
                INSERT INTO reminderChannel (householdId, kind, target, token, minuteOfDay, enabled, createdAt, memberId,
                    quietFrom, quietUntil)
                SELECT \(household), \(channel.kind.rawValue), \(channel.target), \(channel.token), \(channel.minuteOfDay),
                    true, \(stamp), \(channel.member), \(quietFrom), \(quietUntil)
                WHERE (SELECT count(*) FROM reminderChannel WHERE householdId = \(household)) < \(limit)
                RETURNING \(unescaped: Self.channelColumns)
                """, logger: self.logger)
            guard let added = try await Self.channels(rows).first else {
                throw StoreError.invalid("A household has at most \(limit) reminder channels.")
            }
            return added
        }
    }

    public func removeReminderChannel(id: Int64, household: Int64) async throws(StoreError) -> Bool {
        try await withConnection("remove the reminder channel") { connection in
            let rows = try await connection.query(
                "DELETE FROM reminderChannel WHERE id = \(id) AND householdId = \(household) RETURNING id", logger: self.logger
            )
            var removed = false
            for try await _ in rows { removed = true }
            return removed
        }
    }

    public func setReminderChannel(id: Int64, enabled: Bool, note: String?) async throws(StoreError) {
        let note = ReminderRules.note(note)
        try await withConnection("change the reminder channel") { connection in
            _ = try await connection.query(
                "UPDATE reminderChannel SET enabled = \(enabled), note = \(note) WHERE id = \(id)", logger: self.logger
            )
        }
    }

    public func claimReminderDigest(
        channel: Int64, day: CalendarDay, now: Date, lease: TimeInterval
    ) async throws(StoreError) -> Int? {
        let stamp = now.roundedToMilliseconds, until = now.addingTimeInterval(lease).roundedToMilliseconds
        let date = PostgresDay(day)
        return try await withConnection("claim the reminder digest") { connection in
            let inserted = try await connection.query("""
                INSERT INTO reminderDigest (channelId, day, attempts, claimedAt, retryAt)
                VALUES (\(channel), \(date), 1, \(stamp), \(until))
                ON CONFLICT (channelId, day) DO NOTHING RETURNING attempts
                """, logger: self.logger)
            var attempts: Int?
            for try await row in inserted {
                var columns = PostgresColumns(row)
                attempts = Int(try columns.int64())
            }
            if let attempts { return attempts }
            let updated = try await connection.query("""
                UPDATE reminderDigest SET attempts = attempts + 1, claimedAt = \(stamp), retryAt = \(until)
                WHERE channelId = \(channel) AND day = \(date) AND sentAt IS NULL AND retryAt IS NOT NULL
                    AND retryAt <= \(stamp)
                RETURNING attempts
                """, logger: self.logger)
            for try await row in updated {
                var columns = PostgresColumns(row)
                attempts = Int(try columns.int64())
            }
            return attempts
        }
    }

    @discardableResult
    public func finishReminderDigest(
        channel: Int64, day: CalendarDay, attempt: Int, outcome: ReminderDigestOutcome, now: Date
    ) async throws(StoreError) -> Bool {
        let stamp = now.roundedToMilliseconds, date = PostgresDay(day)
        return try await withConnection("record the reminder digest") { connection in
            let rows: PostgresRowSequence
            switch outcome {
            case .sent(let tasks):
                rows = try await connection.query("""
                    UPDATE reminderDigest SET sentAt = \(stamp), tasks = \(tasks), retryAt = NULL, lastError = NULL
                    WHERE channelId = \(channel) AND day = \(date) AND attempts = \(attempt) RETURNING attempts
                    """, logger: self.logger)
            case .nothingDue:
                rows = try await connection.query("""
                    UPDATE reminderDigest SET sentAt = \(stamp), tasks = 0, retryAt = NULL
                    WHERE channelId = \(channel) AND day = \(date) AND attempts = \(attempt) RETURNING attempts
                    """, logger: self.logger)
            case .failed(let reason, let retryAt):
                let note = ReminderRules.note(reason), retry = retryAt?.roundedToMilliseconds
                rows = try await connection.query("""
                    UPDATE reminderDigest SET lastError = \(note), retryAt = \(retry)
                    WHERE channelId = \(channel) AND day = \(date) AND attempts = \(attempt) RETURNING attempts
                    """, logger: self.logger)
            }
            var recorded = false
            for try await _ in rows { recorded = true }
            return recorded
        }
    }

    public func reminderDigests(channel: Int64, limit: Int) async throws(StoreError) -> [ReminderDigestRecord] {
        let limit = max(0, limit)
        return try await withConnection("read the reminder digests") { connection in
            let rows = try await connection.query("""
                SELECT channelId, day, attempts, claimedAt, sentAt, tasks, lastError, retryAt FROM reminderDigest
                WHERE channelId = \(channel) ORDER BY day DESC LIMIT \(limit)
                """, logger: self.logger)
            var records: [ReminderDigestRecord] = []
            for try await row in rows {
                var columns = PostgresColumns(row)
                records.append(ReminderDigestRecord(
                    channel: try columns.int64(), day: try columns.day(), attempts: Int(try columns.int64()),
                    claimedAt: try columns.instant(), sentAt: try columns.optionalInstant(), tasks: Int(try columns.int64()),
                    lastError: try columns.optionalString(), retryAt: try columns.optionalInstant()
                ))
            }
            return records
        }
    }

    public func setReminderSchedule(
        member: Int64?, household: Int64, minuteOfDay: Int, quietHours: QuietHours?
    ) async throws(StoreError) -> Int {
        try ReminderRules.check(minuteOfDay: minuteOfDay, quietHours: quietHours)
        let quietFrom = quietHours?.from, quietUntil = quietHours?.until
        return try await withConnection("change the reminder hour") { connection in
            let rows = try await connection.query("""
                UPDATE reminderChannel SET minuteOfDay = \(minuteOfDay), quietFrom = \(quietFrom), quietUntil = \(quietUntil)
                WHERE memberId IS NOT DISTINCT FROM \(member)::bigint AND householdId = \(household) RETURNING id
                """, logger: self.logger)
            var changed = 0
            for try await _ in rows { changed += 1 }
            return changed
        }
    }

    public func careAssignments(household: Int64) async throws(StoreError) -> CareAssignments {
        try await inSnapshot("read who looks after the plants") { connection in
            var members: [HouseholdMember] = []
            for try await row in try await connection.query(
                "SELECT id, name FROM appUser WHERE householdId = \(household) ORDER BY id", logger: self.logger
            ) {
                var columns = PostgresColumns(row)
                members.append(HouseholdMember(id: try columns.int64(), name: try columns.string()))
            }
            var plants: [Int64: CareAssignee] = [:]
            for try await row in try await connection.query("""
                SELECT careAssignment.plantId, careAssignment.memberId FROM careAssignment
                JOIN plant ON plant.id = careAssignment.plantId WHERE plant.householdId = \(household)
                """, logger: self.logger) {
                var columns = PostgresColumns(row)
                let plant = try columns.int64()
                plants[plant] = try columns.optionalInt64().map(CareAssignee.member) ?? .turns
            }
            var lastDoneBy: [Int64: [CareTask: String]] = [:]
            for try await row in try await connection.query("""
                SELECT careEvent.plantId, careEvent.task, careEvent.recordedBy FROM careEvent
                JOIN careAssignment ON careAssignment.plantId = careEvent.plantId AND careAssignment.turns
                JOIN plant ON plant.id = careEvent.plantId AND plant.householdId = \(household)
                WHERE careEvent.soil IS NULL AND careEvent.recordedBy IS NOT NULL
                ORDER BY careEvent.day, careEvent.id
                """, logger: self.logger) {
                var columns = PostgresColumns(row)
                let plant = try columns.int64(), taskText = try columns.string(), name = try columns.string()
                guard let task = CareTask(rawValue: taskText) else { continue }
                lastDoneBy[plant, default: [:]][task] = name
            }
            return CareAssignments(members: members, plants: plants, lastDoneBy: lastDoneBy)
        }
    }

    public func setCareAssignment(plant: Int64, household: Int64, to assignee: CareAssignee?) async throws(StoreError) {
        try await inTransaction("assign the plant") { connection in
            var owner: Int64?
            for try await row in try await connection.query(
                "SELECT householdId FROM plant WHERE id = \(plant) FOR UPDATE", logger: self.logger
            ) {
                var columns = PostgresColumns(row)
                owner = try columns.int64()
            }
            guard owner == household else { throw StoreError.plantNotFound(plant) }
            switch assignee {
            case nil:
                try await connection.query("DELETE FROM careAssignment WHERE plantId = \(plant)", logger: self.logger)
            case .member(let member)?:
                try await self.requireMember(member, of: household, connection)
                try await connection.query("""
                    INSERT INTO careAssignment (plantId, memberId, turns) VALUES (\(plant), \(member), false)
                    ON CONFLICT (plantId) DO UPDATE SET memberId = excluded.memberId, turns = false
                    """, logger: self.logger)
            case .turns?:
                try await connection.query("""
                    INSERT INTO careAssignment (plantId, memberId, turns) VALUES (\(plant), NULL, true)
                    ON CONFLICT (plantId) DO UPDATE SET memberId = NULL, turns = true
                    """, logger: self.logger)
            }
        }
    }

    private func requireMember(_ member: Int64, of household: Int64, _ connection: PostgresConnection) async throws {
        var owner: Int64?
        for try await row in try await connection.query(
            "SELECT householdId FROM appUser WHERE id = \(member)", logger: logger
        ) {
            var columns = PostgresColumns(row)
            owner = try columns.int64()
        }
        guard owner == household else { throw StoreError.invalid("That account is not a member of this household.") }
    }

    private static func channels(_ rows: PostgresRowSequence) async throws -> [ReminderChannel] {
        var channels: [ReminderChannel] = []
        for try await row in rows {
            var columns = PostgresColumns(row)
            let id = try columns.int64(), household = try columns.int64(), kindText = try columns.string()
            guard let kind = ReminderChannelKind(rawValue: kindText) else {
                throw StoreError.database(operation: "read the reminder channels", reason: "unknown kind '\(kindText)'")
            }
            let target = try columns.string(), token = try columns.optionalString(), minute = Int(try columns.int64())
            let enabled = try columns.bool(), note = try columns.optionalString(), createdAt = try columns.instant()
            let member = try columns.optionalInt64(), quietFrom = try columns.optionalInt(), quietUntil = try columns.optionalInt()
            let memberName = try columns.optionalString()
            channels.append(ReminderChannel(
                id: id, household: household, kind: kind, target: target, token: token, minuteOfDay: minute,
                enabled: enabled, note: note, createdAt: createdAt, member: member, memberName: memberName,
                quietHours: quietFrom.flatMap { from in quietUntil.map { QuietHours(from: from, until: $0) } }
            ))
        }
        return channels
    }
}
