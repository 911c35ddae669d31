import Foundation
import PlantGuideCore

/// What someone found when they felt a plant's soil before watering it.
public enum SoilReading: String, Sendable, Codable, Hashable, CaseIterable {
    /// Still wet: the watering can wait.
    case wet
    /// Already dry: it needed water.
    case dry
}

/// The two seasons a care interval is learned for (see ``Hemisphere/isRestSeason(month:)``).
public enum CareSeason: String, Sendable, Codable, Hashable, CaseIterable {
    case growing
    case rest

    /// The season `day` is in.
    public init(of day: CalendarDay, hemisphere: Hemisphere) {
        self = hemisphere.isRestSeason(month: day.month) ? .rest : .growing
    }

    /// "in the growing season", "in winter".
    public var phrase: String { self == .growing ? "in the growing season" : "in winter" }
}

/// One entry of a task's care log as the learner reads it: the task done, or the soil checked.
public struct CareObservation: Sendable, Hashable {
    /// The day of the entry.
    public var day: CalendarDay
    /// What the soil was like, for a check; `nil` when the task was done.
    public var soil: SoilReading?

    /// An entry of the log.
    public init(day: CalendarDay, soil: SoilReading?) {
        self.day = day
        self.soil = soil
    }
}

/// One group of evidence that moved a learned interval, e.g. "the soil was still wet twice in October (+2)".
public struct IntervalReason: Sendable, Hashable, Codable {
    /// What the evidence was.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The soil was still wet when it was due: the plant dries more slowly than the interval said.
        case stillWet = "still wet"
        /// The soil was dry when checked, with no check that found it wet before: it dried on or before that day.
        case alreadyDry = "already dry"
        /// The task was done well before it was due, without a check: whoever did it judged it needed it.
        case doneEarly = "done early"
    }

    /// What the evidence was.
    public var kind: Kind
    /// The season whose interval it moved.
    public var season: CareSeason
    /// The month the evidence came in, `YYYY-MM`.
    public var month: String
    /// How many cycles of this kind in that month.
    public var count: Int
    /// How many days it moved the interval by (negative: shorter), before rounding.
    public var days: Double

    /// The reason in words, e.g. "the soil was still wet twice in October 2026 (+2)".
    public var text: String {
        let times = switch count {
        case 1: "once"
        case 2: "twice"
        default: "\(count) times"
        }
        let what = switch kind {
        case .stillWet: "the soil was still wet when due \(times)"
        case .alreadyDry: "the soil was already dry when checked \(times)"
        case .doneEarly: "done early \(times)"
        }
        let rounded = (days * 10).rounded() / 10
        let change = rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
        return "\(what) in \(Self.monthName(month)) (\(rounded > 0 ? "+" : rounded == 0 ? "±" : "")\(change))"
    }

    /// "October 2026" for "2026-10".
    private static func monthName(_ month: String) -> String {
        let names = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
            "December",
        ]
        let parts = month.split(separator: "-")
        guard parts.count == 2, let number = Int(parts[1]), (1...12).contains(number) else { return month }
        return "\(names[number - 1]) \(parts[0])"
    }
}

/// What the learner made of a task's log: a factor per season on the guide's interval, and why.
public struct LearnedIntervals: Sendable, Hashable {
    /// The growing season's interval over the guide's (1: as the guide says); `nil` when nothing was learned.
    public var growing: Double?
    /// The rest season's interval over the guide's; `nil` when nothing was learned.
    public var rest: Double?
    /// The evidence in the order it came, grouped by kind, season and month.
    public var reasons: [IntervalReason]

    /// Nothing learned.
    public static let none = LearnedIntervals(growing: nil, rest: nil, reasons: [])

    /// The factor learned for `season`.
    public func factor(_ season: CareSeason) -> Double? { season == .growing ? growing : rest }
}

/// Learns how often one plant needs a task from what its people log: watering done on the day the soil was found dry,
/// checks that found it still wet, and the task done well before it was due.
///
/// Each watering cycle (from one watering to the next) says something about how many days the soil takes to dry, `L`:
/// a check that found it still wet on day `c` of the cycle says `L > c`; one that found it dry, or watering without a
/// check well before the due day, says `L ≤ c`; watering on time or late without a check says nothing (it does not tell
/// whether the soil was still wet). The learned interval is the most likely mean of `L` given these bounds, each cycle's
/// `L` spread ±``spread`` around the mean, with the guide's interval as a weak prior (``priorSpread``), within
/// ``bounds`` of the guide. Each season learns from its own cycles (the season of the day a cycle's evidence came in: the
/// watering that closed it, or the latest check of the cycle still open; a cycle across the change of season counts
/// whole for the later one), the latest ``memory`` of them, so a plant that grows or moves is followed. The whole log is read again on every entry, so an
/// entry removed is forgotten, and everything before ``learn(guide:log:since:)``'s `since` (set by "back to the
/// guide") is ignored.
public struct IntervalLearner: Sendable {
    /// The learned interval stays within these multiples of the guide's.
    public static let bounds: ClosedRange<Double> = 0.5...2.0
    /// How much one cycle's drying time varies around the plant's mean (relative standard deviation).
    public static let spread = 0.10
    /// How far the guide is trusted (relative standard deviation of the prior).
    public static let priorSpread = 1.0
    /// How many of a season's latest cycles count.
    public static let memory = 12
    /// Watering without a check counts as evidence when it is at least this much (and 2 days) before the due day.
    public static let earlyFraction = 0.2

    /// Which months are winter.
    public var hemisphere: Hemisphere
    /// When set, every day counts as this season (for simulations longer than a season).
    private var onlySeason: CareSeason?

    /// A learner for plants in `hemisphere`.
    public init(hemisphere: Hemisphere) {
        self.hemisphere = hemisphere
    }

    /// A learner for which every day is in `season`.
    package init(everyDayIn season: CareSeason) {
        hemisphere = .north
        onlySeason = season
    }

    /// The season a cycle starting on `day` teaches.
    private func season(of day: CalendarDay) -> CareSeason {
        onlySeason ?? CareSeason(of: day, hemisphere: hemisphere)
    }

    /// Whether PlantGuide learns `task`'s interval from the log: watering, misting and feeding do; repotting and pruning
    /// come too rarely to learn from.
    public static func learns(_ task: CareTask) -> Bool {
        task == .water || task == .mist || task == .fertilize
    }

    /// The intervals a task's log teaches, over the guide's `growing` and `rest` days.
    /// - Parameters:
    ///   - log: the task's entries, in any order; entries of one day are read checks first.
    ///   - since: entries before this day are ignored (the plant went back to the guide then).
    public func learn(guide: (growing: Int?, rest: Int?), log: [CareObservation], since: CalendarDay? = nil) -> LearnedIntervals {
        let entries = log.filter { entry in since.map { entry.day >= $0 } ?? true }.sorted { lhs, rhs in
            lhs.day != rhs.day ? lhs.day < rhs.day : (lhs.soil != nil && rhs.soil == nil)
        }
        var seasons: [CareSeason: SeasonState] = [:]
        for season in CareSeason.allCases {
            let guideDays = season == .growing ? guide.growing : guide.rest
            if let guideDays, guideDays > 0 { seasons[season] = SeasonState(guide: Double(guideDays)) }
        }
        var reasons: [IntervalReason] = []
        var cycle: Cycle?
        for entry in entries {
            guard let open = cycle else {
                if entry.soil == nil { cycle = Cycle(start: entry.day) }
                continue
            }
            let gap = entry.day.days(since: open.start)
            switch entry.soil {
            case .wet:
                if gap > 0 { cycle?.wet = max(open.wet ?? 0, gap) }
            case .dry:
                if gap > 0 { cycle?.dry = min(open.dry ?? .max, gap) }
            case nil:
                guard gap > 0 else { continue }
                let season = season(of: entry.day)
                if var state = seasons[season], let (bound, kind) = open.evidence(closedAfter: gap, due: state.dueDays) {
                    let before = state.mean
                    state.add(bound)
                    seasons[season] = state
                    Self.note(&reasons, kind: kind, season: season, day: entry.day, change: state.mean - before)
                }
                cycle = Cycle(start: entry.day)
            }
        }
        // Wet checks of the cycle still open count now: the interval grows the day the soil is found wet.
        if let open = cycle, let wet = open.wet, open.dry == nil {
            let season = season(of: open.start.adding(days: wet))
            if var state = seasons[season] {
                let before = state.mean
                state.add(Bound(low: Double(wet), high: nil))
                seasons[season] = state
                let day = open.start.adding(days: wet)
                Self.note(&reasons, kind: .stillWet, season: season, day: day, change: state.mean - before)
            }
        }
        func factor(_ season: CareSeason) -> Double? {
            guard let state = seasons[season], state.count > 0 else { return nil }
            return state.mean / state.guide
        }
        return LearnedIntervals(growing: factor(.growing), rest: factor(.rest), reasons: reasons)
    }

    /// The days between occurrences for a guide interval and a learned factor: rounded, within ``bounds``, at least 1.
    public static func interval(guide: Int, factor: Double?) -> Int {
        guard let factor, factor.isFinite else { return guide }
        let clamped = min(max(factor, bounds.lowerBound), bounds.upperBound)
        return max(1, Int((Double(guide) * clamped).rounded()))
    }

    /// A stored factor within ``bounds``; `nil` for one that is not a number (from a damaged archive).
    public static func clamped(_ factor: Double) -> Double? {
        factor.isFinite ? min(max(factor, bounds.lowerBound), bounds.upperBound) : nil
    }

    /// Adds `change` to the reason of the same kind, season and month when it is the latest one, else a new reason.
    private static func note(
        _ reasons: inout [IntervalReason], kind: IntervalReason.Kind, season: CareSeason, day: CalendarDay, change: Double
    ) {
        let (year, month, _) = day.components
        let monthText = String(format: "%04d-%02d", year, month)
        if let last = reasons.indices.last, reasons[last].kind == kind, reasons[last].season == season,
           reasons[last].month == monthText {
            reasons[last].count += 1
            reasons[last].days += change
        } else {
            reasons.append(IntervalReason(kind: kind, season: season, month: monthText, count: 1, days: change))
        }
    }

    /// What one cycle says about the drying time: more than `low` days, at most `high` days.
    struct Bound {
        var low: Double
        var high: Double?
    }

    /// A watering cycle being read: the day it began and the checks in it (days since its start).
    private struct Cycle {
        var start: CalendarDay
        var wet: Int?
        var dry: Int?

        /// What the cycle says once the task is done `gap` days after it began, with the task due after `due` days.
        func evidence(closedAfter gap: Int, due: Int) -> (Bound, IntervalReason.Kind)? {
            let low = wet ?? 0
            if let dry, dry > low { return (Bound(low: Double(low), high: Double(dry)), wet == nil ? .alreadyDry : .stillWet) }
            // Watered after the soil was found wet: it had dried by then.
            if wet != nil, gap > low { return (Bound(low: Double(low), high: Double(gap)), .stillWet) }
            let early = max(2, Int((Double(due) * IntervalLearner.earlyFraction).rounded()))
            if wet == nil, dry == nil, gap <= due - early { return (Bound(low: 0, high: Double(gap)), .doneEarly) }
            return nil
        }
    }

    /// One season's evidence and the estimate it gives.
    private struct SeasonState {
        let guide: Double
        var bounds: [Bound] = []
        var mean: Double
        var count: Int { bounds.count }

        init(guide: Double) {
            self.guide = guide
            mean = guide
        }

        /// The interval in force before the next cycle, in whole days.
        var dueDays: Int { max(1, Int(mean.rounded())) }

        mutating func add(_ bound: Bound) {
            bounds.append(bound)
            if bounds.count > IntervalLearner.memory { bounds.removeFirst(bounds.count - IntervalLearner.memory) }
            mean = Self.estimate(guide: guide, bounds: bounds)
        }

        /// The mean drying time that makes the bounds most likely, searched on a grid of 1/300 of the allowed range.
        static func estimate(guide: Double, bounds: [Bound]) -> Double {
            let low = guide * IntervalLearner.bounds.lowerBound, high = guide * IntervalLearner.bounds.upperBound
            let steps = 300
            var best = (score: -Double.infinity, mean: guide)
            let priorWidth = IntervalLearner.priorSpread * guide
            for step in 0...steps {
                let mean = low + (high - low) * Double(step) / Double(steps)
                let sigma = IntervalLearner.spread * mean
                var score = -0.5 * ((mean - guide) / priorWidth) * ((mean - guide) / priorWidth)
                for bound in bounds {
                    score += logProbability(
                        above: bound.low > 0 ? (bound.low - mean) / sigma : -.infinity,
                        atMost: bound.high.map { ($0 - mean) / sigma } ?? .infinity
                    )
                }
                if score > best.score { best = (score, mean) }
            }
            return best.mean
        }

        /// log P(low < Z ≤ high) for a standard normal Z, accurate far in either tail: evidence far outside the allowed
        /// range must still pull the estimate to the nearest bound, not vanish into a floor.
        static func logProbability(above low: Double, atMost high: Double) -> Double {
            guard low < high else { return -1e6 }
            // Work in the tail the interval lies in, as a difference of tail masses that do not cancel.
            let (near, far) = low > 0 ? (logUpperTail(low), logUpperTail(high)) : (logUpperTail(-high), logUpperTail(-low))
            guard near > -.infinity else { return -1e6 }
            return max(near + log1p(-exp(far - near)), -1e6)
        }

        /// log P(Z > z) for a standard normal Z.
        static func logUpperTail(_ z: Double) -> Double {
            if z == .infinity { return -.infinity }
            if z == -.infinity { return 0 }
            if z < 25 { return log(0.5 * erfc(z / 2.0.squareRoot())) }
            return -z * z / 2 - log(z) - 0.5 * log(2 * Double.pi)
        }
    }
}
