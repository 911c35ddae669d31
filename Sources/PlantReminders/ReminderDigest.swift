import Foundation
import PlantGuideCore
import PlantStore

/// One household's care for one day, as a reminder says it: the tasks due that day or overdue, room by room.
public struct ReminderDigest: Sendable, Hashable, Codable {
    /// One task in the digest.
    public struct Item: Sendable, Hashable, Codable {
        public var plantId: Int64
        public var plant: String
        public var room: String?
        /// The task (`water`, `fertilize`, `mist`, `repot`, `prune`).
        public var task: String
        /// What to do, e.g. "Water".
        public var action: String
        /// The day it fell due.
        public var dueOn: CalendarDay
        /// Days past due (0: due today).
        public var overdueDays: Int
    }

    public var household: Int64
    /// The member it is for (their tasks and everyone's), or `nil` for the whole household's (every task).
    public var member: String?
    /// The household's local day.
    public var day: CalendarDay
    public var items: [Item]
    /// The headline, e.g. "3 plant tasks today".
    public var title: String
    /// The whole digest as plain text, room by room.
    public var text: String
    /// Where the Care page is, when the server's public address is known (`PLANTGUIDE_PUBLIC_URL`).
    public var link: String?

    /// The digest of a due list (today and overdue) for `day`: for a member, the tasks that are theirs (assigned to
    /// them, their turn, or everyone's); else every task.
    public init(
        household: Int64, day: CalendarDay, due: DueList, publicURL: URL?, member: HouseholdMember? = nil,
        assignments: CareAssignments = .none
    ) {
        self.household = household
        self.member = member?.name
        self.day = day
        items = due.tasks.compactMap { task in
            guard let dueOn = task.dueOn, dueOn <= day else { return nil }
            if let member, !assignments.isFor(member: member.id, plant: task.plantId, task: task.task) { return nil }
            return Item(
                plantId: task.plantId, plant: task.plantName, room: task.room, task: task.task.rawValue,
                action: task.task.rawValue.prefix(1).uppercased() + task.task.rawValue.dropFirst(), dueOn: dueOn,
                overdueDays: max(0, day.days(since: dueOn))
            )
        }
        title = "\(counted(items.count, "plant task")) today"
        link = publicURL.map { $0.appendingPathComponent("care").absoluteString }
        var lines = ["\(title) (\(day))."]
        var room: String?? = .none
        for item in items {
            if case .some(let current) = room, current == item.room {
                // Same room as the line before.
            } else {
                room = .some(item.room)
                lines.append("")
                lines.append(item.room ?? "No room")
            }
            let late = item.overdueDays > 0 ? " (\(counted(item.overdueDays, "day")) overdue)" : ""
            lines.append("- \(item.action) \(item.plant)\(late)")
        }
        if let link { lines += ["", "Mark them done: \(link)"] }
        text = lines.joined(separator: "\n")
    }

    /// Whether anything is overdue (ntfy's priority goes up then).
    public var hasOverdue: Bool { items.contains { $0.overdueDays > 0 } }
}
