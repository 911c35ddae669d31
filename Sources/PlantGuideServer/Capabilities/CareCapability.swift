import Foundation

/// A care task that is due: water, fertilise, repot…
public struct DueCareItem: Sendable, Codable, Hashable {
    /// Stable id of the schedule.
    public var id: String
    /// The plant's collection id.
    public var plantID: String
    /// The plant's display name.
    public var plantName: String
    /// What to do, e.g. "Water".
    public var action: String
    /// When it is due.
    public var due: Date

    /// Creates a task.
    public init(id: String, plantID: String, plantName: String, action: String, due: Date) {
        self.id = id
        self.plantID = plantID
        self.plantName = plantName
        self.action = action
        self.due = due
    }
}

/// Care schedules of the collection.
public struct CareCapability: Sendable {
    /// Tasks due up to a date, soonest first.
    public var due: @Sendable (_ through: Date) async throws -> [DueCareItem]
    /// Records a task as done now.
    public var markDone: @Sendable (_ taskID: String) async throws -> Void
    /// Moves a task later by a number of days.
    public var snooze: @Sendable (_ taskID: String, _ days: Int) async throws -> Void
    /// The schedules as an iCalendar document.
    public var calendar: @Sendable () async throws -> String

    /// Creates the capability.
    public init(
        due: @escaping @Sendable (_ through: Date) async throws -> [DueCareItem],
        markDone: @escaping @Sendable (_ taskID: String) async throws -> Void,
        snooze: @escaping @Sendable (_ taskID: String, _ days: Int) async throws -> Void,
        calendar: @escaping @Sendable () async throws -> String
    ) {
        self.due = due
        self.markDone = markDone
        self.snooze = snooze
        self.calendar = calendar
    }
}
