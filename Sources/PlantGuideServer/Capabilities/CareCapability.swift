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
    /// Records what the soil was like when watering came due (`wet` or `dry`, see `SoilReading`): it moves the watering
    /// and teaches the plant's interval.
    public var checkSoil: @Sendable (_ taskID: String, _ soil: String) async throws -> Void
    /// Removes a plant's newest care entry; returns what it said ("Watered on 2026-11-27"), `nil` when there was none.
    public var undoLast: @Sendable (_ plantID: String) async throws -> String?

    /// Creates the capability.
    public init(
        due: @escaping @Sendable (_ through: Date) async throws -> [DueCareItem],
        markDone: @escaping @Sendable (_ taskID: String) async throws -> Void,
        snooze: @escaping @Sendable (_ taskID: String, _ days: Int) async throws -> Void,
        calendar: @escaping @Sendable () async throws -> String,
        checkSoil: @escaping @Sendable (_ taskID: String, _ soil: String) async throws -> Void = { _, _ in
            throw ServerError.capabilityMissing("Soil checks are not available in this build.")
        },
        undoLast: @escaping @Sendable (_ plantID: String) async throws -> String? = { _ in
            throw ServerError.capabilityMissing("Undoing care is not available in this build.")
        }
    ) {
        self.due = due
        self.markDone = markDone
        self.snooze = snooze
        self.calendar = calendar
        self.checkSoil = checkSoil
        self.undoLast = undoLast
    }
}
