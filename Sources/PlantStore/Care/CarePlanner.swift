import Foundation
import PlantGuideCore

/// One task of one plant with its next due day.
public struct ScheduledTask: Sendable, Hashable, Codable {
    public var plantId: Int64
    public var plantUUID: String
    /// The nickname if there is one, else the name.
    public var plantName: String
    public var room: String?
    public var task: CareTask
    /// Next due day; `nil` when the task is not scheduled for this plant.
    public var dueOn: CalendarDay?
    public var lastDone: CalendarDay?
    /// Days between occurrences in the season of the due day (or today when unscheduled).
    public var intervalDays: Int?
    public var snoozedUntil: CalendarDay?
    public var paused: Bool
    /// Days past due (0 when due today or later).
    public var overdueDays: Int
    /// Why the interval is what it is; only when asked for (``CarePlanner/explainedSchedule(forPlant:)``).
    public var explanation: IntervalExplanation? = nil

    /// Whether the task is past due.
    public var isOverdue: Bool { overdueDays > 0 }
}

/// Tasks due within a window, grouped by room.
public struct DueList: Sendable, Hashable, Codable {
    /// One room's due tasks, most overdue first.
    public struct Room: Sendable, Hashable, Codable {
        /// The room name; `nil` for plants without one.
        public var room: String?
        public var tasks: [ScheduledTask]
    }

    public var today: CalendarDay
    /// Last day included.
    public var through: CalendarDay
    public var rooms: [Room]

    /// Every task in the list.
    public var tasks: [ScheduledTask] { rooms.flatMap(\.tasks) }

    /// A list of these rooms' tasks.
    public init(today: CalendarDay, through: CalendarDay, rooms: [Room]) {
        self.today = today
        self.through = through
        self.rooms = rooms
    }
}

/// Care schedules over the collection: what is due, marking done, snoozing. Time is injected.
public struct CarePlanner: Sendable {
    /// Where the plants' care state is kept.
    public let store: any CollectionStore
    public let scheduler: CareScheduler
    /// The time zone that decides which calendar day "now" is.
    public let timeZone: TimeZone
    /// The clock the planner reads "today" from.
    public let now: @Sendable () -> Date

    /// A planner over `store`.
    public init(
        store: any CollectionStore, hemisphere: Hemisphere, timeZone: TimeZone = .current,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        scheduler = CareScheduler(hemisphere: hemisphere)
        self.timeZone = timeZone
        self.now = now
    }

    /// Today in the planner's time zone.
    public var today: CalendarDay { CalendarDay(now(), in: timeZone) }

    /// Every task of one plant, scheduled or not, in task order.
    public func schedule(forPlant plantId: Int64) async throws(StoreError) -> [ScheduledTask] {
        guard let state = try await store.careStates(plantId: plantId, room: nil).first else { throw .plantNotFound(plantId) }
        let today = today
        var startDays = StartDays(timeZone: timeZone)
        return CareTask.allCases.map { scheduledTask($0, of: state, today: today, startDays: &startDays) }
    }

    /// Tasks due from any past day up to `days` days from today (0: today only), grouped by room
    /// (rooms A–Z, plants without a room last), most overdue first, then by plant and task.
    public func due(withinDays days: Int, room: String? = nil) async throws(StoreError) -> DueList {
        let today = today
        let through = today.adding(days: max(0, days))
        var rooms = try await collect(through: through, room: room, today: today, byRoom: true)
            .map { DueList.Room(room: $0.room, tasks: $0.tasks) }
        rooms.sort { lhs, rhs in
            switch (lhs.room, rhs.room) {
            case (nil, _): false
            case (_, nil): true
            case let (l?, r?): l.localizedCaseInsensitiveCompare(r) == .orderedAscending
            }
        }
        return DueList(today: today, through: through, rooms: rooms)
    }

    /// Scheduled tasks due on or before `through`, soonest first.
    public func upcoming(through: CalendarDay, room: String? = nil) async throws(StoreError) -> [ScheduledTask] {
        try await collect(through: through, room: room, today: today, byRoom: false).first?.tasks ?? []
    }

    /// Logs `task` as done (today unless `day` is given) and returns the event and the moved task.
    @discardableResult
    public func markDone(
        plantId: Int64, task: CareTask, on day: CalendarDay? = nil, note: String? = nil
    ) async throws(StoreError) -> (event: CareEvent, next: ScheduledTask) {
        let today = today
        let day = day ?? today
        guard day <= today else { throw .invalid("Care can't be logged for a future day (\(day)); today is \(today).") }
        try await checkNotBeforeThePlant(plantId, day: day)
        let event = try await store.logCare(plantId: plantId, task: task, day: day, note: note, soil: nil, now: now())
        if IntervalLearner.learns(task) { try await relearn(plantId: plantId, task: task) }
        let next = try await schedule(forPlant: plantId).first { $0.task == task }
        guard let next else { throw .plantNotFound(plantId) }
        return (event, next)
    }

    /// Puts a task off: it is not due before `days` days from today (cleared when it is done).
    @discardableResult
    public func snooze(plantId: Int64, task: CareTask, days: Int) async throws(StoreError) -> ScheduledTask {
        guard (1...365).contains(days) else { throw .invalid("Snooze for 1 to 365 days, not \(days).") }
        let until = today.adding(days: days)
        try await store.updateScheduleSettings(plantId: plantId, task: task) { $0.snoozedUntil = until }
        guard let next = try await schedule(forPlant: plantId).first(where: { $0.task == task }) else {
            throw .plantNotFound(plantId)
        }
        return next
    }

    /// Scheduled tasks due on or before `through`, soonest first (then by plant and task): one
    /// group, or one per room (exact room name) when `byRoom`, the groups ordered by their first task.
    private func collect(
        through: CalendarDay, room: String?, today: CalendarDay, byRoom: Bool
    ) async throws(StoreError) -> [(room: String?, tasks: [ScheduledTask])] {
        // Find due tasks as plain numbers and sort those: copying and sorting full tasks (strings
        // and all) costs more than finding them once there are thousands. Tasks go straight into
        // their room's group, found once per plant rather than hashed once per task.
        // Each task found is one number: due day, position of the plant's state (states come in id
        // order, so this orders by plant id) and task. Sorting plain numbers is several times
        // faster than sorting tuples through a closure.
        let states = try await store.careStates(plantId: nil, room: room)
        var groups: [[UInt64]] = []
        var groupRooms: [String?] = []
        var groupOfRoom: [String?: Int] = [:]
        var startDays = StartDays(timeZone: timeZone)
        let allTasks = CareTask.allCases
        let groupCapacity = byRoom ? 0 : states.count * 2
        states.withUnsafeBufferPointer { buffer in
            // Reading fields through the buffer avoids copying each plant's state (and retaining
            // its strings) once per task.
            for position in buffer.indices {
                let createdAt = buffer[position].createdAt
                var group: Int?
                for task in allTasks {
                    let (_, due) = dueDay(
                        intervals: buffer[position].intervals[task.index], settings: buffer[position].settings[task.index],
                        lastDone: buffer[position].lastDone[task.index], createdAt: createdAt, startDays: &startDays
                    )
                    guard let due, due <= through else { continue }
                    let key = UInt64(max(0, due.dayNumber + (1 << 19))) << 43
                        | (UInt64(truncatingIfNeeded: position) & ((1 << 40) - 1)) << 3
                        | UInt64(task.index)
                    let slot: Int
                    if let group {
                        slot = group
                    } else {
                        let roomKey = byRoom ? buffer[position].room : nil
                        // Few rooms: comparing with each is cheaper than hashing the name.
                        if groupRooms.count <= 16, let known = groupRooms.firstIndex(of: roomKey) {
                            slot = known
                        } else if let known = groupOfRoom[roomKey] {
                            slot = known
                        } else {
                            slot = groups.count
                            groupOfRoom[roomKey] = slot
                            groupRooms.append(roomKey)
                            groups.append([])
                            groups[slot].reserveCapacity(groupCapacity)
                        }
                        group = slot
                    }
                    groups[slot].append(key)
                }
            }
        }
        for index in groups.indices { groups[index].sort() }
        let order = groups.indices.sorted { groups[$0][0] < groups[$1][0] }
        return states.withUnsafeBufferPointer { buffer in
            order.map { index in
                let tasks = groups[index].map { key in
                    let task = allTasks[Int(key & 7)]
                    let position = Int((key >> 3) & ((1 << 40) - 1))
                    let due = CalendarDay(dayNumber: Int(key >> 43) - (1 << 19))
                    let settings = buffer[position].settings[task.index]
                    let intervals = scheduler.effective(buffer[position].intervals[task.index], settings: settings)
                    return ScheduledTask(
                        plantId: buffer[position].plantId, plantUUID: buffer[position].plantUUID,
                        plantName: buffer[position].displayName, room: buffer[position].room, task: task,
                        dueOn: due, lastDone: buffer[position].lastDone[task.index],
                        intervalDays: scheduler.interval(on: due, intervals),
                        snoozedUntil: settings?.snoozedUntil, paused: settings?.paused ?? false,
                        overdueDays: max(0, today.days(since: due))
                    )
                }
                return (groupRooms[index], tasks)
            }
        }
    }

    private func scheduledTask(
        _ task: CareTask, of state: PlantCareState, today: CalendarDay, startDays: inout StartDays
    ) -> ScheduledTask {
        let (intervals, due) = dueDay(task, of: state, startDays: &startDays)
        return scheduledTask(task, of: state, intervals: intervals, due: due, today: today)
    }

    /// The intervals in force and the next due day of one task.
    private func dueDay(
        _ task: CareTask, of state: PlantCareState, startDays: inout StartDays
    ) -> (TaskIntervals, CalendarDay?) {
        dueDay(
            intervals: state.intervals[task.index], settings: state.settings[task.index],
            lastDone: state.lastDone[task.index], createdAt: state.createdAt, startDays: &startDays
        )
    }

    private func dueDay(
        intervals base: TaskIntervals, settings: CareScheduleSettings?, lastDone: CalendarDay?, createdAt: Date,
        startDays: inout StartDays
    ) -> (TaskIntervals, CalendarDay?) {
        let intervals = scheduler.effective(base, settings: settings)
        guard intervals.growing != nil || intervals.rest != nil else { return (intervals, nil) }
        let start = lastDone ?? startDays.day(of: createdAt)
        return (intervals, scheduler.nextDue(intervals, lastDone: lastDone, start: start, snoozedUntil: settings?.snoozedUntil))
    }

    private func scheduledTask(
        _ task: CareTask, of state: PlantCareState, intervals: TaskIntervals, due: CalendarDay?, today: CalendarDay
    ) -> ScheduledTask {
        let settings = state.settings[task.index]
        let lastDone = state.lastDone[task.index]
        return ScheduledTask(
            plantId: state.plantId, plantUUID: state.plantUUID, plantName: state.displayName,
            room: state.room, task: task, dueOn: due, lastDone: lastDone,
            intervalDays: scheduler.interval(on: due ?? today, intervals),
            snoozedUntil: settings?.snoozedUntil, paused: settings?.paused ?? false,
            overdueDays: due.map { max(0, today.days(since: $0)) } ?? 0
        )
    }
}

/// Turns creation instants into calendar days, remembering the zone offset per hour: time-zone
/// lookups are slow, and plants added in one session share the hour.
private struct StartDays {
    let timeZone: TimeZone
    var offsets: [Int: Int] = [:]
    /// The hour looked up last and its offset: a plant's tasks ask for the same instant in a row.
    var last: (hour: Int, offset: Int)?

    mutating func day(of date: Date) -> CalendarDay {
        let hour = Int((date.timeIntervalSince1970 / 3600).rounded(.down))
        let offset: Int
        if let last, last.hour == hour {
            offset = last.offset
        } else if let known = offsets[hour] {
            offset = known
            last = (hour, known)
        } else {
            offset = timeZone.secondsFromGMT(for: date)
            offsets[hour] = offset
            last = (hour, offset)
        }
        return CalendarDay(dayNumber: Int(((date.timeIntervalSince1970 + Double(offset)) / 86_400).rounded(.down)))
    }
}
