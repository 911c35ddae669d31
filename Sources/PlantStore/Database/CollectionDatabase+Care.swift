import Foundation
import GRDB
import PlantGuideCore

/// What the planner needs to know about one plant to schedule its care.
public struct PlantCareState: Sendable, Hashable {
    public var plant: Plant
    public var profile: CareProfile
    public var settings: [CareTask: CareScheduleSettings]
    /// The last day each task was done.
    public var lastDone: [CareTask: CalendarDay]
}

extension CollectionDatabase {
    /// Logs care given to a plant and clears the task's snooze, in one transaction.
    @discardableResult
    public func logCare(
        plantId: Int64, task: CareTask, day: CalendarDay, note: String? = nil, now: Date
    ) throws(StoreError) -> CareEvent {
        let now = now.roundedToMilliseconds
        return try write("log care") { db in
            guard try Plant.exists(db, key: plantId) else { throw StoreError.plantNotFound(plantId) }
            var event = CareEvent(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: plantId, task: task, day: day,
                note: note.nonEmpty, createdAt: now
            )
            try event.insert(db)
            event.id = db.lastInsertedRowID
            try db.execute(
                sql: "UPDATE careSchedule SET snoozedUntil = NULL WHERE plantId = ? AND task = ?",
                arguments: [plantId, task.rawValue]
            )
            try db.execute(sql: "UPDATE plant SET updatedAt = max(updatedAt, ?) WHERE id = ?", arguments: [now, plantId])
            return event
        }
    }

    /// Care events of a plant, newest first (every plant's when `plantId` is nil).
    public func events(plantId: Int64? = nil) throws(StoreError) -> [CareEvent] {
        try read("read care events") { db in
            if let plantId {
                return try CareEvent.fetchAll(
                    db, sql: "SELECT * FROM careEvent WHERE plantId = ? ORDER BY day DESC, id DESC", arguments: [plantId]
                )
            }
            return try CareEvent.fetchAll(db, sql: "SELECT * FROM careEvent ORDER BY day DESC, id DESC")
        }
    }

    /// Changes one plant's settings for one task (creating them if needed) with `change`.
    @discardableResult
    public func updateScheduleSettings(
        plantId: Int64, task: CareTask, _ change: @Sendable (inout CareScheduleSettings) -> Void
    ) throws(StoreError) -> CareScheduleSettings {
        try write("change a care schedule") { db in
            guard try Plant.exists(db, key: plantId) else { throw StoreError.plantNotFound(plantId) }
            var settings = try CareScheduleSettings.fetchOne(
                db, sql: "SELECT * FROM careSchedule WHERE plantId = ? AND task = ?", arguments: [plantId, task.rawValue]
            ) ?? CareScheduleSettings(plantId: plantId, task: task)
            change(&settings)
            try settings.save(db)
            return settings
        }
    }

    /// Replaces a plant's care profile (e.g. after enrichment or an edit).
    public func setProfile(_ profile: CareProfile, forPlant plantId: Int64) throws(StoreError) {
        try write("change a care profile") { db in
            guard try Plant.exists(db, key: plantId) else { throw StoreError.plantNotFound(plantId) }
            try CareProfileRow(plantId: plantId, profile: profile).save(db)
        }
    }

    /// Care state of every plant (or one plant, or one room's), read in one snapshot.
    public func careStates(plantId: Int64? = nil, room: String? = nil) throws(StoreError) -> [PlantCareState] {
        try read("read care schedules") { db in
            var plantFilter = "", arguments = StatementArguments()
            if let plantId {
                plantFilter = " WHERE plantId = ?"
                arguments = [plantId]
            }
            let plants: [Plant]
            if let plantId {
                plants = try Plant.fetchOne(db, key: plantId).map { [$0] } ?? []
            } else if let room {
                plants = try Plant.fetchAll(db, sql: "SELECT * FROM plant WHERE room = ? COLLATE NOCASE", arguments: [room])
            } else {
                plants = try Plant.fetchAll(db)
            }
            var profiles: [Int64: CareProfile] = [:]
            for row in try CareProfileRow.fetchAll(db, sql: "SELECT * FROM careProfile" + plantFilter, arguments: arguments) {
                profiles[row.plantId] = row.profile
            }
            var settings: [Int64: [CareTask: CareScheduleSettings]] = [:]
            for row in try CareScheduleSettings.fetchAll(db, sql: "SELECT * FROM careSchedule" + plantFilter, arguments: arguments) {
                settings[row.plantId, default: [:]][row.task] = row
            }
            var lastDone: [Int64: [CareTask: CalendarDay]] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT plantId, task, MAX(day) FROM careEvent\(plantFilter) GROUP BY plantId, task",
                arguments: arguments
            )
            while let row = try rows.next() {
                guard let task = CareTask(rawValue: row[1]), let day = CalendarDay(row[2] as String) else { continue }
                lastDone[row[0], default: [:]][task] = day
            }
            return plants.map { plant in
                PlantCareState(
                    plant: plant, profile: profiles[plant.id] ?? CareGuide.fallbackProfile,
                    settings: settings[plant.id] ?? [:], lastDone: lastDone[plant.id] ?? [:]
                )
            }
        }
    }
}
