import Foundation
import PlantGuideCore

/// One thing PlantGuide knows about a plant's care, to check beside a diagnosis. A fact from the care log, the
/// schedule or where the plant lives, compared only with what the guide or the schedule says: never a diagnosis.
public struct CareFact: Sendable, Codable, Hashable {
    /// What the fact is about.
    public enum Kind: String, Sendable, Codable, Hashable {
        /// Waterings in the last 30 days against the schedule.
        case watering
        /// A task past its due day.
        case overdue
        /// The last repotting, or none logged.
        case repotting
        /// The spot's light against the guide's.
        case light
    }

    /// What the fact is about.
    public var kind: Kind
    /// The fact in a sentence.
    public var text: String

    /// Creates a fact.
    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }
}

/// The facts of a plant's care worth checking when it looks sick.
public enum CareFacts {
    /// The window the care log is counted over.
    public static let windowDays = 30

    /// Waterings in the last ``windowDays`` against the schedule's interval now, each overdue task, the last
    /// repotting, and the spot's light against the guide's.
    /// - Parameters:
    ///   - details: the plant, its care log, profile and conditions.
    ///   - schedule: its tasks as the planner sees them today.
    ///   - today: the household's today.
    public static func of(details: PlantDetails, schedule: [ScheduledTask], today: CalendarDay) -> [CareFact] {
        var facts: [CareFact] = []
        let since = today.adding(days: -(windowDays - 1))
        // A soil check is logged against watering but is not a watering.
        let waterings = details.events.filter { $0.task == .water && $0.soil == nil && $0.day >= since && $0.day <= today }.count
        var watering = "Watered \(counted(waterings, "time")) in the last \(windowDays) days"
        if let interval = schedule.first(where: { $0.task == .water && !$0.paused })?.intervalDays, interval > 0 {
            let expected = max(1, Int((Double(windowDays) / Double(interval)).rounded()))
            watering += "; its schedule waters every \(counted(interval, "day")) now, about \(counted(expected, "time")) in \(windowDays) days"
        }
        facts.append(CareFact(kind: .watering, text: watering + "."))
        for task in schedule where task.isOverdue && !task.paused {
            let due = task.dueOn.map { " (due \($0))" } ?? ""
            facts.append(CareFact(kind: .overdue, text: "\(noun(task.task)) is \(counted(task.overdueDays, "day")) overdue\(due)."))
        }
        if let repotted = details.events.filter({ $0.task == .repot && $0.soil == nil && $0.day <= today }).map(\.day).max() {
            let months = today.days(since: repotted) / 30
            let ago = months >= 1 ? "about \(counted(months, "month")) ago" : "\(counted(today.days(since: repotted), "day")) ago"
            facts.append(CareFact(kind: .repotting, text: "Last repotted on \(repotted), \(ago)."))
        } else {
            facts.append(CareFact(kind: .repotting, text: "No repotting in the care log."))
        }
        let spot = details.scheduleSettings.lazy.compactMap { $0.conditions?.light }.first
        switch (spot, details.profile?.light) {
        case let (spot?, guide?):
            facts.append(CareFact(kind: .light, text: "Its spot has \(spot.rawValue) light; the guide's is \(guide.rawValue) light."))
        case let (spot?, nil):
            facts.append(CareFact(kind: .light, text: "Its spot has \(spot.rawValue) light."))
        case let (nil, guide?):
            facts.append(CareFact(kind: .light, text: "The guide's light is \(guide.rawValue); the spot's is not recorded."))
        case (nil, nil):
            break
        }
        return facts
    }

    private static func noun(_ task: CareTask) -> String {
        switch task {
        case .water: "Watering"
        case .fertilize: "Feeding"
        case .repot: "Repotting"
        case .mist: "Misting"
        case .prune: "Pruning"
        }
    }
}
