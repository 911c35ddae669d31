import Foundation
import Logging
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Care on PostgreSQL, the twin of `CollectionDatabase+Care.swift`: the log, schedule settings and profiles, and the
/// care states the scheduler reads, assembled by the same ``PlantStore/CareStateAssembler`` as SQLite's.
///
/// Every change locks the plant's row first, so two replicas changing one plant's care take turns: a settings change
/// reads the settings the other one stored, never an older copy it would then overwrite.
extension PostgresStore: CareStore {
    public func logCare(
        plantId: Int64, task: CareTask, day: CalendarDay, note: String?, soil: SoilReading?, now: Date
    ) async throws(StoreError) -> CareEvent {
        let scope = try scope("log care")
        let note = try CareEvent.checkedNote(note)
        try CareEvent.check(soil: soil, task: task)
        let now = now.roundedToMilliseconds
        return try await writeCare(of: plantId, household: scope.household, "log care") { connection in
            guard try await Self.lockPlant(plantId, household: scope.household, on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(plantId)
            }
            // The plant's row is locked: two replicas count one after the other.
            let counted = try await connection.query(
                "SELECT count(*) FROM careEvent WHERE plantId = \(plantId) AND day = \(PostgresDay(day))", logger: self.logger
            )
            for try await sameDay in counted.decode(Int.self) {
                try CareEvent.check(entriesThatDay: sameDay, plantId: plantId, day: day)
            }
            var event = CareEvent(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: plantId, task: task, day: day, note: note, createdAt: now,
                recordedBy: scope.userName, soil: soil
            )
            let rows = try await connection.query("""
                INSERT INTO careEvent (uuid, plantId, task, day, note, createdAt, recordedBy, soil)
                VALUES (\(event.uuid), \(plantId), \(task.rawValue), \(PostgresDay(day)), \(note), \(PostgresInstant(now)),
                    \(scope.userName), \(soil?.rawValue))
                RETURNING id
                """, logger: self.logger)
            for try await id in rows.decode(Int64.self) { event.id = id }
            // A check is not the task done: the snooze it may set stays.
            if soil == nil {
                try await connection.query(
                    "UPDATE careSchedule SET snoozedUntil = NULL WHERE plantId = \(plantId) AND task = \(task.rawValue)",
                    logger: self.logger
                )
            }
            try await Self.touchPlant(plantId, at: now, on: connection, logger: self.logger)
            return event
        }
    }

    public func removeLastCareEntry(plantId: Int64) async throws(StoreError) -> CareEvent? {
        let household = try scope("undo a care entry").household
        return try await writeCare(of: plantId, household: household, "undo a care entry") { connection in
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else {
                throw StoreError.plantNotFound(plantId)
            }
            let rows = try await connection.query("""
                DELETE FROM careEvent WHERE id = (
                    SELECT id FROM careEvent WHERE plantId = \(plantId) ORDER BY createdAt DESC, id DESC LIMIT 1
                )
                RETURNING \(unescaped: Self.eventColumns)
                """, logger: self.logger)
            var removed: CareEvent?
            for try await row in rows.decode(EventRow.self) { removed = try Self.event(row) }
            return removed
        }
    }

    public func events(plantId: Int64?) async throws(StoreError) -> [CareEvent] {
        let household = try scope("read care events").household
        return try await withConnection("read care events") { connection in
            try await Self.events(plantId: plantId, household: household, on: connection, logger: self.logger)
        }
    }

    public func updateScheduleSettings(
        plantId: Int64, task: CareTask, _ change: @Sendable (inout CareScheduleSettings) -> Void
    ) async throws(StoreError) -> CareScheduleSettings {
        let household = try scope("change a care schedule").household
        return try await writeCare(of: plantId, household: household, "change a care schedule") { connection in
            // Locked before the settings are read, so a concurrent change is read here, not overwritten.
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else { throw StoreError.plantNotFound(plantId) }
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.scheduleColumns) FROM careSchedule WHERE plantId = \(plantId) AND task = \(task.rawValue)
                """, logger: self.logger)
            var settings = CareScheduleSettings(plantId: plantId, task: task)
            for try await row in rows.decode(ScheduleRow.self) { settings = try Self.settings(row) }
            change(&settings)
            // The change is of this plant's settings for this task, whatever the closure did to the keys.
            (settings.plantId, settings.task) = (plantId, task)
            try await connection.query("""
                INSERT INTO careSchedule (
                    plantId, task, growingDays, restDays, paused, snoozedUntil, learnedGrowing, learnedRest, learnedSince, conditions
                )
                VALUES (\(settings.plantId), \(settings.task.rawValue), \(settings.growingDays), \(settings.restDays), \(settings.paused),
                    \(settings.snoozedUntil.bound), \(settings.learnedGrowing), \(settings.learnedRest), \(settings.learnedSince.bound),
                    \(CareScheduleSettings.encoded(settings.conditions)))
                ON CONFLICT (plantId, task) DO UPDATE SET growingDays = excluded.growingDays, restDays = excluded.restDays,
                    paused = excluded.paused, snoozedUntil = excluded.snoozedUntil, learnedGrowing = excluded.learnedGrowing,
                    learnedRest = excluded.learnedRest, learnedSince = excluded.learnedSince, conditions = excluded.conditions
                """, logger: self.logger)
            return settings
        }
    }

    public func setProfile(_ profile: CareProfile, forPlant plantId: Int64) async throws(StoreError) {
        let household = try scope("change a care profile").household
        try await writeCare(of: plantId, household: household, "change a care profile") { connection in
            guard try await Self.lockPlant(plantId, household: household, on: connection, logger: self.logger) else { throw StoreError.plantNotFound(plantId) }
            try await Self.setProfile(profile, plantId: plantId, on: connection, logger: self.logger)
        }
    }

    /// Runs `body`, a write of one plant's care (its profile, schedules or care log, and its `updatedAt`; never what orders
    /// the plant list), in a transaction, and brings the household's lists kept in memory along when they were its
    /// state before the write: that plant's state and row are read again in the transaction and put in place of the old
    /// ones, at the stamp the write made.
    ///
    /// The stamp row is locked once `body` has taken every other lock, as the commit's deferred trigger would take it
    /// (so no new order of locks, no deadlock), which makes the stamp read then the last committed one: no change of the
    /// household committed since it, and none can commit before this transaction. The deferred triggers are then run
    /// (`SET CONSTRAINTS ALL IMMEDIATE`) for the new stamp; the lists are kept only once the transaction committed.
    private func writeCare<Result: Sendable>(
        of plantId: Int64, household: Int64, _ operation: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws(StoreError) -> Result {
        let careCache = careCache, plantCache = plantCache, logger = logger
        let (result, refreshed) = try await inTransaction(operation) { connection in
            let result = try await body(connection)
            let rows = try await connection.query(
                "SELECT stamp FROM changeStamp WHERE householdId = \(household) FOR UPDATE", logger: logger
            )
            var before: Int64?
            for try await stamp in rows.decode(Int64.self) { before = stamp }
            guard let before else { return (result, nil as CareWriteRefresh?) }
            let keepsStates = careCache.keptStamp(household: household) == before
            let keepsPlants = plantCache.keptStamp(household: household) == before
            guard keepsStates || keepsPlants else { return (result, nil) }
            try await connection.query("SET CONSTRAINTS ALL IMMEDIATE", logger: logger)
            let after = try await Self.changeStamp(household: household, on: connection, logger: logger)
            guard after != before else { return (result, nil) }
            return (result, CareWriteRefresh(
                household: household, plantId: plantId, before: before, after: after,
                states: keepsStates ? try await self.careStates(household: household, plantIds: [plantId], on: connection) : nil,
                plants: keepsPlants ? try await Self.plants(ids: [plantId], household: household, on: connection, logger: logger) : nil
            ))
        }
        refreshed?.apply(careCache: careCache, plantCache: plantCache)
        return result
    }

    /// Care state of every plant (or one plant, or one room's), read in one snapshot.
    ///
    /// A household's states (of every plant, or of a room) come from ``careCache`` while the household's change stamp
    /// (pg8) is the one they were read at: one statement reading the stamp, instead of reading 10,000 plants again when
    /// nothing changed; after a change, only the plants changed since are read again (pg9, ``KeptLists``). As in SQLite, a
    /// plant id wins over a room.
    public func careStates(plantId: Int64?, room: String?) async throws(StoreError) -> [PlantCareState] {
        let household = try scope("read care schedules").household
        if plantId == nil {
            let stamp = try await withConnection("read care schedules") { connection in
                try await Self.changeStamp(household: household, on: connection, logger: self.logger)
            }
            if let states = careCache.elements(household: household, stamp: stamp) { return RoomNames.filter(states, room: room, by: \.room) }
        }
        let cache = careCache
        return try await inSnapshot("read care schedules") { connection in
            if let plantId { return try await self.careStates(household: household, plantIds: [plantId], on: connection) }
            let stamp = try await Self.changeStamp(household: household, on: connection, logger: self.logger)
            if let states = try await Self.keptList(
                cache, household: household, stamp: stamp, on: connection, logger: self.logger,
                fresh: { try await self.careStates(household: household, plantIds: $0, on: connection) }, plantId: \.plantId,
                precedes: KeptLists.careOrder
            ) {
                return RoomNames.filter(states, room: room, by: \.room)
            }
            let states = try await self.careStates(household: household, plantIds: nil, on: connection)
            cache.keep(states, household: household, stamp: stamp)
            return RoomNames.filter(states, room: room, by: \.room)
        }
    }

    /// `household`'s list kept in `cache` as of `stamp`: the one kept if it was read at `stamp`, else the one kept before
    /// brought up to date with `fresh`, the current elements of the plants changed since (pg9, ``KeptLists``); `nil` when
    /// the list is to be read whole. Each statement may have a snapshot of its own: a household's stamps grow in commit
    /// order (pg9), so the log read after the stamp holds every plant changed up to it, and a row newer than the stamp is
    /// read again after the next one.
    static func keptList<Element>(
        _ cache: HouseholdCache<Element>, household: Int64, stamp: Int64, on connection: PostgresConnection, logger: Logger,
        fresh: ([Int64]) async throws -> [Element], plantId: (Element) -> Int64, precedes: (Element, Element) -> Bool
    ) async throws -> [Element]? {
        if let elements = cache.elements(household: household, stamp: stamp) { return elements }
        guard let keptStamp = cache.keptStamp(household: household),
              let changed = try await changedPlants(household: household, since: keptStamp, current: stamp, on: connection, logger: logger)
        else { return nil }
        return cache.patch(
            household: household, from: keptStamp, to: stamp, changed: changed, fresh: try await fresh(changed), plantId: plantId,
            precedes: precedes
        )
    }

    /// The plants of `household` changed since a list kept at `stamp` was read (pg9, see ``KeptLists``), or `nil` when the
    /// list is to be read again whole: the log does not reach back to it, or more plants changed than are worth reading
    /// alone. One statement.
    private static func changedPlants(
        household: Int64, since stamp: Int64, current: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Int64]? {
        let rows = try await connection.query("""
            SELECT (SELECT since FROM changeStamp WHERE householdId = \(household)),
                   ARRAY(SELECT plantId FROM plantChange WHERE householdId = \(household) AND stamp > \(stamp)
                         LIMIT \(KeptLists.patchLimit + 1))
            """, logger: logger)
        for try await (since, plants) in rows.decode((Int64?, [Int64]).self) {
            guard KeptLists.canPatch(keptStamp: stamp, since: since, current: current), plants.count <= KeptLists.patchLimit else {
                return nil
            }
            return plants
        }
        return nil
    }

    /// The household's change stamp (pg8), 0 before its first.
    static func changeStamp(household: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query("SELECT stamp FROM changeStamp WHERE householdId = \(household)", logger: logger)
        var stamp: Int64 = 0
        for try await value in rows.decode(Int64.self) { stamp = value }
        return stamp
    }

    /// Care state of `household`'s plants (or of those of `plantIds`), read from the tables on `connection`, in a snapshot.
    private func careStates(household: Int64, plantIds: [Int64]?, on connection: PostgresConnection) async throws -> [PlantCareState] {
        if plantIds?.isEmpty == true { return [] }
        // The filter is a parameter that may be NULL: each statement is planned with its value, so NULL costs nothing.
        let scheduleRows = try await connection.query("""
            SELECT \(unescaped: Self.scheduleColumns) FROM careSchedule JOIN plant ON plant.id = careSchedule.plantId
            WHERE plant.householdId = \(household) AND (\(plantIds)::bigint[] IS NULL OR careSchedule.plantId = ANY(\(plantIds)))
            ORDER BY careSchedule.plantId
            """, logger: logger)
        var settings: [CareScheduleSettings] = []
        for try await row in scheduleRows.decode(ScheduleRow.self) { settings.append(try Self.settings(row)) }
        // The plants with their profiles and last days (careLastDays, pg7) come as one row of arrays, an element per
        // plant in id order: one message to decode instead of one per plant, which cost most of the read at 10,000.
        let plants = try await connection.query("""
            SELECT array_agg(id), array_agg(uuid), array_agg(name), array_agg(room), array_agg(createdAt),
                   array_agg(hasProfile), array_agg(waterGrowingDays), array_agg(waterWinterDays),
                   array_agg(fertilizeGrowingDays), array_agg(mistDays), array_agg(repotDays), array_agg(pruneDays),
                   array_agg(water), array_agg(fertilize), array_agg(repot), array_agg(mist), array_agg(prune)
            FROM (
                SELECT p.id, p.uuid, coalesce(p.nickname, p.name) AS name, p.room, p.createdAt,
                       c.plantId IS NOT NULL AS hasProfile, c.waterGrowingDays, c.waterWinterDays,
                       c.fertilizeGrowingDays, c.mistDays, c.repotDays, c.pruneDays,
                       d.water, d.fertilize, d.repot, d.mist, d.prune
                FROM plant p LEFT JOIN careProfile c ON c.plantId = p.id LEFT JOIN careLastDays d ON d.plantId = p.id
                WHERE p.householdId = \(household) AND (\(plantIds)::bigint[] IS NULL OR p.id = ANY(\(plantIds)))
                ORDER BY p.id
            ) AS plants
            """, logger: self.logger)
        var states: [PlantCareState] = []
        for try await row in plants {
            var columns = PostgresColumns(row)
            let ids = try columns.int64Array(), uuids = try columns.stringArray(), names = try columns.stringArray()
            let rooms = try columns.optionalStringArray(), created = try columns.instantArray()
            let hasProfile = try columns.boolArray()
            let waterGrowing = try columns.optionalIntArray(), waterWinter = try columns.optionalIntArray()
            let fertilizeGrowing = try columns.optionalIntArray(), mist = try columns.optionalIntArray()
            let repot = try columns.optionalIntArray(), prune = try columns.optionalIntArray()
            var lastDone: [[CalendarDay?]] = []
            for _ in CareTask.allCases { lastDone.append(try columns.optionalDayArray()) }
            let counts = [
                uuids.count, names.count, rooms.count, created.count, hasProfile.count, waterGrowing.count, waterWinter.count,
                fertilizeGrowing.count, mist.count, repot.count, prune.count,
            ] + lastDone.map(\.count)
            guard counts.allSatisfy({ $0 == ids.count }) else {
                throw StoreError.invalid("the care states' columns hold different numbers of plants")
            }
            // A subquery's order is kept by the aggregates in practice, not by promise: sorted here if it was not.
            var order = Array(ids.indices)
            if zip(ids, ids.dropFirst()).contains(where: { $0 >= $1 }) { order.sort { ids[$0] < ids[$1] } }
            var assembler = CareStateAssembler(lastDone: [], settings: settings, plantCount: ids.count)
            for index in order {
                let profile = CareStateAssembler.ProfileIntervals(
                    waterGrowingDays: waterGrowing[index], waterWinterDays: waterWinter[index],
                    fertilizeGrowingDays: fertilizeGrowing[index], mistDays: mist[index], repotDays: repot[index],
                    pruneDays: prune[index]
                )
                assembler.addPlant(
                    id: ids[index], uuid: uuids[index], displayName: names[index], room: rooms[index],
                    createdAt: created[index], profile: hasProfile[index] ? profile : nil,
                    lastDone: PerTask(
                        lastDone[0][index], lastDone[1][index], lastDone[2][index], lastDone[3][index], lastDone[4][index]
                    )
                )
            }
            states = assembler.states
        }
        return states
    }
}

// MARK: - Rows and statements the other parts reuse

extension PostgresStore {
    /// The `careEvent` columns ``event(_:)`` reads, in its order.
    static let eventColumns =
        "careEvent.id, careEvent.uuid, careEvent.plantId, careEvent.task, careEvent.day, careEvent.note, careEvent.createdAt, "
        + "careEvent.recordedBy, careEvent.soil"
    /// A row of ``eventColumns``.
    typealias EventRow = (Int64, String, Int64, String, PostgresDay, String?, PostgresInstant, String?, String?)

    /// The care event of a row of ``eventColumns``.
    static func event(_ row: EventRow) throws -> CareEvent {
        guard let task = CareTask(rawValue: row.3) else { throw StoreError.invalid("care event \(row.0) has an unreadable task or day") }
        var soil: SoilReading?
        if let text = row.8 {
            guard let reading = SoilReading(rawValue: text) else { throw StoreError.invalid("care event \(row.0) has an unknown soil reading") }
            soil = reading
        }
        return CareEvent(
            id: row.0, uuid: row.1, plantId: row.2, task: task, day: row.4.day, note: row.5, createdAt: row.6.date,
            recordedBy: row.7, soil: soil
        )
    }

    /// The care log, newest first, of one plant or of all `household`'s.
    static func events(plantId: Int64?, household: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> [CareEvent] {
        let rows = try await connection.query("""
            SELECT \(unescaped: eventColumns) FROM careEvent JOIN plant ON plant.id = careEvent.plantId
            WHERE plant.householdId = \(household) AND (\(plantId)::bigint IS NULL OR careEvent.plantId = \(plantId))
            ORDER BY careEvent.day DESC, careEvent.id DESC
            """, logger: logger)
        var events: [CareEvent] = []
        for try await row in rows.decode(EventRow.self) { events.append(try event(row)) }
        return events
    }

    /// The `careSchedule` columns ``settings(_:)`` reads, in its order.
    static let scheduleColumns =
        "careSchedule.plantId, careSchedule.task, careSchedule.growingDays, careSchedule.restDays, careSchedule.paused, "
        + "careSchedule.snoozedUntil, careSchedule.learnedGrowing, careSchedule.learnedRest, careSchedule.learnedSince, "
        + "careSchedule.conditions"
    /// A row of ``scheduleColumns``.
    typealias ScheduleRow = (Int64, String, Int?, Int?, Bool, PostgresDay?, Double?, Double?, PostgresDay?, String?)

    /// The schedule settings of a row of ``scheduleColumns``.
    static func settings(_ row: ScheduleRow) throws -> CareScheduleSettings {
        guard let task = CareTask(rawValue: row.1) else { throw StoreError.invalid("care schedule of plant \(row.0) has an unknown task") }
        return CareScheduleSettings(
            plantId: row.0, task: task, growingDays: row.2, restDays: row.3, paused: row.4, snoozedUntil: row.5?.day,
            learnedGrowing: row.6, learnedRest: row.7, learnedSince: row.8?.day,
            conditions: try CareScheduleSettings.conditions(decoding: row.9, plantId: row.0)
        )
    }

    /// A plant's own schedule settings, by task name (the order SQLite's primary key gives).
    static func scheduleSettings(ofPlant plantId: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> [CareScheduleSettings] {
        let rows = try await connection.query("""
            SELECT \(unescaped: scheduleColumns) FROM careSchedule WHERE plantId = \(plantId) ORDER BY task COLLATE "C"
            """, logger: logger)
        var settings: [CareScheduleSettings] = []
        for try await row in rows.decode(ScheduleRow.self) { settings.append(try Self.settings(row)) }
        return settings
    }
}
