import Foundation
import PlantStore

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
    /// The plant's room; `nil` when it has none.
    public var room: String?
    /// Why the task comes round when it does, e.g. "every 9 days: the guide for genus Goeppertia says 7 in the growing
    /// season; the soil was still wet when due twice in October 2026 (+2)"; `nil` when not explained.
    public var why: String?

    /// Creates a task.
    public init(
        id: String, plantID: String, plantName: String, action: String, due: Date, room: String? = nil, why: String? = nil
    ) {
        self.id = id
        self.plantID = plantID
        self.plantName = plantName
        self.action = action
        self.due = due
        self.room = room
        self.why = why
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
    public var calendar: @Sendable (_ alarmMinute: Int) async throws -> String
    /// Records what the soil was like when watering came due (`wet` or `dry`, see `SoilReading`): it moves the watering
    /// and teaches the plant's interval.
    public var checkSoil: @Sendable (_ taskID: String, _ soil: String) async throws -> Void
    /// Removes a plant's newest care entry; returns what it said ("Watered on 2026-11-27"), `nil` when there was none.
    public var undoLast: @Sendable (_ plantID: String) async throws -> String?
    /// Records several tasks as done, today (`daysAgo` 0) or on a past day, all of them checked first; returns how many.
    public var markDoneMany: @Sendable (_ taskIDs: [String], _ daysAgo: Int) async throws -> Int
    /// Says where a plant lives; its watering interval follows at once.
    public var setConditions: @Sendable (_ plantID: String, _ conditions: PlantConditions) async throws -> Void
    /// The household's hemisphere and time zone, as its schedules use them.
    public var settings: @Sendable () async throws -> CareSettings
    /// Chooses the household's hemisphere (`north`, `south`) and time zone (an IANA name); `nil` keeps one as it is, an
    /// empty value goes back to the server's.
    public var changeSettings: @Sendable (_ hemisphere: String?, _ timeZone: String?) async throws -> Void

    /// Creates the capability.
    public init(
        due: @escaping @Sendable (_ through: Date) async throws -> [DueCareItem],
        markDone: @escaping @Sendable (_ taskID: String) async throws -> Void,
        snooze: @escaping @Sendable (_ taskID: String, _ days: Int) async throws -> Void,
        calendar: @escaping @Sendable (_ alarmMinute: Int) async throws -> String,
        checkSoil: @escaping @Sendable (_ taskID: String, _ soil: String) async throws -> Void = { _, _ in
            throw ServerError.capabilityMissing("Soil checks are not available in this build.")
        },
        undoLast: @escaping @Sendable (_ plantID: String) async throws -> String? = { _ in
            throw ServerError.capabilityMissing("Undoing care is not available in this build.")
        },
        markDoneMany: @escaping @Sendable (_ taskIDs: [String], _ daysAgo: Int) async throws -> Int = { _, _ in
            throw ServerError.capabilityMissing("Logging several tasks at once is not available in this build.")
        },
        setConditions: @escaping @Sendable (_ plantID: String, _ conditions: PlantConditions) async throws -> Void = { _, _ in
            throw ServerError.capabilityMissing("Plant conditions are not available in this build.")
        },
        settings: @escaping @Sendable () async throws -> CareSettings = {
            throw ServerError.capabilityMissing("This server keeps no care settings per household.")
        },
        changeSettings: @escaping @Sendable (_ hemisphere: String?, _ timeZone: String?) async throws -> Void = { _, _ in
            throw ServerError.capabilityMissing("This server cannot keep care settings per household.")
        }
    ) {
        self.settings = settings
        self.changeSettings = changeSettings
        self.markDoneMany = markDoneMany
        self.setConditions = setConditions
        self.due = due
        self.markDone = markDone
        self.snooze = snooze
        self.calendar = calendar
        self.checkSoil = checkSoil
        self.undoLast = undoLast
    }
}
