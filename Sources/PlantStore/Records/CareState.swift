import Foundation
import PlantGuideCore

/// One value per care task, stored inline (no heap allocation), indexed by task or position.
public struct PerTask<Element: Sendable & Hashable>: Sendable, Hashable {
    public var water, fertilize, repot, mist, prune: Element

    /// The same value for every task.
    public init(repeating value: Element) {
        (water, fertilize, repot, mist, prune) = (value, value, value, value, value)
    }

    /// One value per task, in ``CareTask/allCases`` order.
    public init(_ water: Element, _ fertilize: Element, _ repot: Element, _ mist: Element, _ prune: Element) {
        (self.water, self.fertilize, self.repot, self.mist, self.prune) = (water, fertilize, repot, mist, prune)
    }

    /// The value at a task's position in ``CareTask/allCases``.
    public subscript(index: Int) -> Element {
        get {
            switch index {
            case 0: water
            case 1: fertilize
            case 2: repot
            case 3: mist
            default: prune
            }
        }
        set {
            switch index {
            case 0: water = newValue
            case 1: fertilize = newValue
            case 2: repot = newValue
            case 3: mist = newValue
            default: prune = newValue
            }
        }
    }

    /// The value for a task.
    public subscript(task: CareTask) -> Element {
        get { self[task.index] }
        set { self[task.index] = newValue }
    }
}

/// Days between occurrences of a task in each season (`nil`: not done in that season).
public struct TaskIntervals: Sendable, Hashable {
    public var growing: Int?
    public var rest: Int?

    /// Intervals for the two seasons.
    public init(growing: Int?, rest: Int?) {
        self.growing = growing
        self.rest = rest
    }
}

/// What the planner needs to know about one plant to schedule its care: read in bulk, with arrays
/// indexed in ``CareTask/allCases`` order.
public struct PlantCareState: Sendable, Hashable {
    public var plantId: Int64
    public var plantUUID: String
    /// The nickname if there is one, else the name.
    public var displayName: String
    public var room: String?
    public var createdAt: Date
    /// The care profile's intervals per task.
    public var intervals: PerTask<TaskIntervals>
    /// The plant's own settings per task, if any.
    public var settings: PerTask<CareScheduleSettings?>
    /// The last day each task was done.
    public var lastDone: PerTask<CalendarDay?>
}

extension CareTask {
    /// Number of tasks.
    static let count = 5

    /// Position in ``CareTask/allCases``.
    var index: Int {
        switch self {
        case .water: 0
        case .fertilize: 1
        case .repot: 2
        case .mist: 3
        case .prune: 4
        }
    }
}
