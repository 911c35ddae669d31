import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Logs care given to a plant and clears the task's snooze, in one transaction; or, with `soil`, a check of the soil
    /// before watering (the snooze stays).
    @discardableResult
    public func logCare(
        plantId: Int64, task: CareTask, day: CalendarDay, note: String? = nil, soil: SoilReading? = nil, now: Date
    ) throws(StoreError) -> CareEvent {
        let note = try CareEvent.checkedNote(note)
        try CareEvent.check(soil: soil, task: task)
        let now = now.roundedToMilliseconds
        let scope = try self.scope("log care")
        return try writeCare(of: plantId, household: scope.household, "log care") { db in
            guard try Self.plantExists(plantId, in: scope.household, db: db) else { throw StoreError.plantNotFound(plantId) }
            let sameDay = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM careEvent WHERE plantId = ? AND day = ?", arguments: [plantId, day.description]
            ) ?? 0
            try CareEvent.check(entriesThatDay: sameDay, plantId: plantId, day: day)
            var event = CareEvent(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: plantId, task: task, day: day,
                note: note, createdAt: now, recordedBy: scope.userName, soil: soil
            )
            try event.insert(db)
            event.id = db.lastInsertedRowID
            // A check is not the task done: the snooze it may set stays.
            if soil == nil {
                try db.execute(
                    sql: "UPDATE careSchedule SET snoozedUntil = NULL WHERE plantId = ? AND task = ?",
                    arguments: [plantId, task.rawValue]
                )
            }
            try db.execute(sql: "UPDATE plant SET updatedAt = max(updatedAt, ?) WHERE id = ?", arguments: [now, plantId])
            return event
        }
    }

    /// Removes the newest entry of a plant's care log (by when it was logged) and returns it; `nil` when there is none.
    @discardableResult
    public func removeLastCareEntry(plantId: Int64) throws(StoreError) -> CareEvent? {
        let household = try self.scope("undo a care entry").household
        return try writeCare(of: plantId, household: household, "undo a care entry") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            guard let event = try CareEvent.fetchOne(
                db, sql: "SELECT * FROM careEvent WHERE plantId = ? ORDER BY createdAt DESC, id DESC LIMIT 1", arguments: [plantId]
            ) else { return nil }
            try db.execute(sql: "DELETE FROM careEvent WHERE id = ?", arguments: [event.id])
            return event
        }
    }

    /// Care events of a plant, newest first (every plant's when `plantId` is nil).
    public func events(plantId: Int64? = nil) throws(StoreError) -> [CareEvent] {
        let household = try self.scope("read care events").household
        return try read("read care events") { db in
            if let plantId {
                guard try Self.plantExists(plantId, in: household, db: db) else { return [] }
                return try CareEvent.fetchAll(
                    db, sql: "SELECT * FROM careEvent WHERE plantId = ? ORDER BY day DESC, id DESC", arguments: [plantId]
                )
            }
            return try CareEvent.fetchAll(db, sql: """
                SELECT careEvent.* FROM careEvent JOIN plant ON plant.id = careEvent.plantId WHERE plant.householdId = ?
                ORDER BY careEvent.day DESC, careEvent.id DESC
                """, arguments: [household])
        }
    }

    /// Changes one plant's settings for one task (creating them if needed) with `change`.
    @discardableResult
    public func updateScheduleSettings(
        plantId: Int64, task: CareTask, _ change: @Sendable (inout CareScheduleSettings) -> Void
    ) throws(StoreError) -> CareScheduleSettings {
        let household = try self.scope("change a care schedule").household
        return try writeCare(of: plantId, household: household, "change a care schedule") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            var settings = try CareScheduleSettings.fetchOne(
                db, sql: "SELECT * FROM careSchedule WHERE plantId = ? AND task = ?", arguments: [plantId, task.rawValue]
            ) ?? CareScheduleSettings(plantId: plantId, task: task)
            change(&settings)
            // The change is of this plant's settings for this task, whatever the closure did to the keys.
            (settings.plantId, settings.task) = (plantId, task)
            try settings.save(db)
            return settings
        }
    }

    /// Replaces a plant's care profile (e.g. after enrichment or an edit).
    public func setProfile(_ profile: CareProfile, forPlant plantId: Int64) throws(StoreError) {
        let household = try self.scope("change a care profile").household
        try writeCare(of: plantId, household: household, "change a care profile") { db in
            guard try Self.plantExists(plantId, in: household, db: db) else { throw StoreError.plantNotFound(plantId) }
            try CareProfileRow(plantId: plantId, profile: profile).save(db)
        }
    }

    /// Care state of every plant (or one plant, or one room's), read in one snapshot.
    ///
    /// A household's states (of every plant, or of a room) come from ``careCache`` while the household's change stamp is
    /// the one they were read at; after a change, only the plants changed since are read again (``KeptLists``).
    public func careStates(plantId: Int64? = nil, room: String? = nil) throws(StoreError) -> [PlantCareState] {
        let household = try self.scope("read care schedules").household
        let cache = careCache
        return try read("read care schedules") { db in
            if let plantId { return try Self.careStates(db, household: household, plantIds: [plantId]) }
            let stamp = try Self.changeStamp(db, household: household)
            if let states = try Self.keptList(
                db, cache, household: household, stamp: stamp,
                fresh: { try Self.careStates(db, household: household, plantIds: $0) }, plantId: \.plantId,
                precedes: KeptLists.careOrder
            ) {
                return RoomNames.filter(states, room: room, by: \.room)
            }
            let states = try Self.careStates(db, household: household, plantIds: nil)
            cache.keep(states, household: household, stamp: stamp)
            return RoomNames.filter(states, room: room, by: \.room)
        }
    }

    /// Runs `body`, a write of one plant's care (its profile, schedules or care log, and its `updatedAt`; never what orders
    /// the plant list), and brings the household's lists kept in memory along when they were its state before the write:
    /// the plant's state and row are read again in the same transaction and put in place of the old ones, at the stamp
    /// the write made. The due list a person opens after marking a task done then reads one plant instead of every one.
    /// SQLite runs one write at a time, so a list kept at the stamp before is exactly what the write started from; the
    /// lists are kept only once the write has committed.
    private func writeCare<T>(
        of plantId: Int64, household: Int64, _ operation: String, _ body: (Database) throws -> T
    ) throws(StoreError) -> T {
        let careCache = careCache, plantCache = plantCache
        let (result, refreshed) = try write(operation) { db -> (T, CareWriteRefresh?) in
            let before = try Self.changeStamp(db, household: household)
            let result = try body(db)
            let after = try Self.changeStamp(db, household: household)
            let keepsStates = careCache.keptStamp(household: household) == before
            let keepsPlants = plantCache.keptStamp(household: household) == before
            guard after != before, keepsStates || keepsPlants else { return (result, nil) }
            return (result, CareWriteRefresh(
                household: household, plantId: plantId, before: before, after: after,
                states: keepsStates ? try Self.careStates(db, household: household, plantIds: [plantId]) : nil,
                plants: keepsPlants ? try Self.plant(plantId, in: household, db: db).map { [$0] } ?? [] : nil
            ))
        }
        refreshed?.apply(careCache: careCache, plantCache: plantCache)
        return result
    }

    /// Care state of `household`'s plants (or of those of `plantIds`), read from the tables.
    private static func careStates(_ db: Database, household: Int64, plantIds: [Int64]?) throws -> [PlantCareState] {
        if plantIds?.isEmpty == true { return [] }
        let idList = plantIds.map(Self.sqlList)
        var filter = " WHERE p.householdId = ?"
        if let idList { filter += " AND p.id IN \(idList)" }
        let arguments: StatementArguments = [household]
        let plantCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM plant p" + filter, arguments: arguments) ?? 0
        // The per-task rows of the household's plants (of some plants when asked). When the household holds most plants
        // (one household, typically), the tables are read whole, in plant order, without a lookup per plant: the
        // assembler takes only the rows of the plants it is given, by id, and skips the others'.
        let allPlants = try Int.fetchOne(db, sql: "SELECT count(*) FROM plant") ?? 0
        let readsWhole = plantIds == nil && plantCount * 2 >= allPlants
        // Asked for some plants, only theirs are read (a plant of another household among them is skipped as above).
        let plantFilter = idList.map { " WHERE plantId IN \($0)" }
            ?? (readsWhole ? "" : " WHERE plantId IN (SELECT id FROM plant WHERE householdId = ?)")
        let plantArguments: StatementArguments = readsWhole || idList != nil ? [] : [household]
        var done: [CareStateAssembler.LastDone] = []
        try RawRows.forEach(db, sql: """
            SELECT plantId, CASE task WHEN 'water' THEN 0 WHEN 'fertilize' THEN 1 WHEN 'repot' THEN 2
                                      WHEN 'mist' THEN 3 ELSE 4 END,
                   CAST(julianday(day) - 2440587.5 AS INTEGER)
            FROM careLastDone
            """ + plantFilter + " ORDER BY plantId", arguments: plantArguments) { row in
            done.append((row.int64(0), Int(row.int64(1)), Int(row.int64(2))))
        }
        let settings = try CareScheduleSettings.fetchAll(
            db, sql: "SELECT * FROM careSchedule" + plantFilter + " ORDER BY plantId", arguments: plantArguments
        )
        var assembler = CareStateAssembler(lastDone: done, settings: settings, plantCount: plantCount)
        // Days and times arrive as numbers, computed by SQLite, so no text is parsed here.
        // Read straight from the statement: GRDB's rows cost more than the query at thousands of plants.
        try RawRows.forEach(db, sql: """
            SELECT p.id, p.uuid, coalesce(p.nickname, p.name), p.room,
                   CAST(round((julianday(p.createdAt) - 2440587.5) * 86400000) AS INTEGER), c.plantId,
                   c.waterGrowingDays, c.waterWinterDays, c.fertilizeGrowingDays, c.mistDays, c.repotDays, c.pruneDays
            FROM plant p LEFT JOIN careProfile c ON c.plantId = p.id
            """ + filter + " ORDER BY p.id", arguments: arguments) { row in
            let profile = row.optionalInt(5) == nil ? nil : CareStateAssembler.ProfileIntervals(
                waterGrowingDays: row.optionalInt(6), waterWinterDays: row.optionalInt(7),
                fertilizeGrowingDays: row.optionalInt(8), mistDays: row.optionalInt(9), repotDays: row.optionalInt(10),
                pruneDays: row.optionalInt(11)
            )
            assembler.addPlant(
                id: row.int64(0), uuid: row.text(1) ?? "", displayName: row.text(2) ?? "", room: row.text(3),
                createdAt: Date(timeIntervalSince1970: Double(row.int64(4)) / 1000), profile: profile
            )
        }
        return assembler.states
    }
}

