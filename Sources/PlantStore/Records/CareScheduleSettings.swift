import Foundation
import GRDB
import PlantGuideCore

/// One plant's own settings for one task: an interval that replaces the care guide's, a pause, or a
/// snooze.
public struct CareScheduleSettings: Sendable, Hashable, Codable {
    public var plantId: Int64
    public var task: CareTask
    /// Days between occurrences in the growing season, replacing the profile's.
    public var growingDays: Int?
    /// Days between occurrences in the rest season, replacing the profile's.
    public var restDays: Int?
    /// Whether the task is switched off for this plant.
    public var paused: Bool
    /// Not due before this day (cleared when the task is done).
    public var snoozedUntil: CalendarDay?

    /// Settings for one plant and task.
    public init(
        plantId: Int64, task: CareTask, growingDays: Int? = nil, restDays: Int? = nil, paused: Bool = false,
        snoozedUntil: CalendarDay? = nil
    ) {
        self.plantId = plantId
        self.task = task
        self.growingDays = growingDays
        self.restDays = restDays
        self.paused = paused
        self.snoozedUntil = snoozedUntil
    }
}

extension CareScheduleSettings: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "careSchedule"

    public init(row: Row) throws {
        plantId = row["plantId"]
        guard let task = CareTask(rawValue: row["task"]) else {
            throw StoreError.invalid("care schedule of plant \(plantId) has an unknown task")
        }
        self.task = task
        growingDays = row["growingDays"]
        restDays = row["restDays"]
        paused = row["paused"]
        snoozedUntil = (row["snoozedUntil"] as String?).flatMap(CalendarDay.init)
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["plantId"] = plantId
        container["task"] = task.rawValue
        container["growingDays"] = growingDays
        container["restDays"] = restDays
        container["paused"] = paused
        container["snoozedUntil"] = snoozedUntil?.description
    }
}
