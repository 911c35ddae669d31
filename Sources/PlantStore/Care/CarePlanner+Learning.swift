import Foundation
import PlantGuideCore

/// Why a task's interval is what it is: the guide's, learned from the care log, set by hand or paused.
public struct IntervalExplanation: Sendable, Hashable, Codable {
    /// Where the interval in force comes from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The care guide's, unchanged.
        case guide
        /// The guide's, moved by what the care log taught (see ``IntervalLearner``).
        case learned
        /// Set by hand (`care schedule --every`); the log does not move it.
        case set
        /// The task is paused for this plant.
        case paused
        /// The guide advises no such task for this plant in this season.
        case none
    }

    /// The task.
    public var task: CareTask
    /// The season the interval is for (today's).
    public var season: CareSeason
    /// Days between occurrences in force in that season; `nil` when the task is not scheduled.
    public var interval: Int?
    /// The guide's days for that season.
    public var guide: Int?
    /// Where ``interval`` comes from.
    public var source: Source
    /// What the guide's advice is for, e.g. `genus Goeppertia` or `category Cactus`.
    public var basis: String
    /// Where the plant lives, as far as it scales the guide's interval in this season (pot, light, heater, outdoors).
    public var conditions: [PlantConditions.Factor]
    /// The evidence that moved the learned interval, oldest first, e.g. "the soil was still wet when due twice in
    /// October 2026 (+2)".
    public var because: [String]
    /// The whole explanation in a sentence, e.g. "every 9 days: the guide for genus Goeppertia says 7 in the growing
    /// season; the soil was still wet when due twice in October 2026 (+2)".
    public var text: String
}

extension CarePlanner {
    /// The learner the planner uses, for the planner's hemisphere.
    public var learner: IntervalLearner { IntervalLearner(hemisphere: scheduler.hemisphere) }

    /// Logs a check of a plant's soil before watering (today unless `day` is given) and moves the watering: still wet,
    /// it is not due for a few more days (a tenth of its interval, at least one); dry, it is due today. Either way the
    /// check teaches the plant's interval. Returns the check logged and the moved task.
    @discardableResult
    public func checkSoil(
        plantId: Int64, reading: SoilReading, on day: CalendarDay? = nil, note: String? = nil
    ) async throws(StoreError) -> (event: CareEvent, next: ScheduledTask) {
        let today = today
        let day = day ?? today
        guard day <= today else { throw .invalid("A soil check can't be logged for a future day (\(day)); today is \(today).") }
        try await checkNotBeforeThePlant(plantId, day: day)
        let event = try await store.logCare(plantId: plantId, task: .water, day: day, note: note, soil: reading, now: now())
        try await relearn(plantId: plantId, task: .water)
        var next = try await task(.water, ofPlant: plantId)
        if let due = next.dueOn {
            switch reading {
            case .wet where due <= day:
                let wait = max(1, Int((Double(next.intervalDays ?? 10) / 10).rounded()))
                let until = max(day.adding(days: wait), today.adding(days: 1))
                try await store.updateScheduleSettings(plantId: plantId, task: .water) { $0.snoozedUntil = until }
                next = try await task(.water, ofPlant: plantId)
            case .dry where due > today:
                try await store.updateScheduleSettings(plantId: plantId, task: .water) { $0.snoozedUntil = today }
                next = try await task(.water, ofPlant: plantId)
            default:
                break
            }
        }
        return (event, next)
    }

    /// Refuses care logged before the plant was acquired (when that day is known), or more than a year before it was
    /// added (care given before it came into the collection is welcome, a mistyped year is not).
    func checkNotBeforeThePlant(_ plantId: Int64, day: CalendarDay) async throws(StoreError) {
        guard let plant = try await store.plant(id: plantId) else { throw .plantNotFound(plantId) }
        let added = CalendarDay(plant.createdAt, in: timeZone)
        if let acquired = plant.acquiredOn, day < acquired {
            throw .invalid("\(plant.nickname ?? plant.name) was acquired on \(acquired); care can't be logged for \(day).")
        }
        if plant.acquiredOn == nil, day < added.adding(days: -365) {
            throw .invalid(
                "\(plant.nickname ?? plant.name) was added on \(added); care can be logged from a year before that, not for \(day)."
            )
        }
    }

    /// Removes the newest entry of a plant's care log (care done or a soil check), learns again without it, and
    /// returns it with the plant's schedule; `nil` when the log is empty. A snooze the entry set is lifted.
    public func undoLastEntry(plantId: Int64) async throws(StoreError) -> (removed: CareEvent, schedule: [ScheduledTask])? {
        guard let removed = try await store.removeLastCareEntry(plantId: plantId) else { return nil }
        if removed.soil != nil {
            try await store.updateScheduleSettings(plantId: plantId, task: removed.task) { $0.snoozedUntil = nil }
        }
        if IntervalLearner.learns(removed.task) { try await relearn(plantId: plantId, task: removed.task) }
        return (removed, try await schedule(forPlant: plantId))
    }

    /// Forgets what the log taught about a task: from today the plant follows the guide again, and learns anew from
    /// what is logged from now on.
    @discardableResult
    public func backToGuide(plantId: Int64, task: CareTask) async throws(StoreError) -> ScheduledTask {
        let today = today
        try await store.updateScheduleSettings(plantId: plantId, task: task) { settings in
            settings.learnedGrowing = nil
            settings.learnedRest = nil
            settings.learnedSince = today
        }
        return try await self.task(task, ofPlant: plantId)
    }

    /// Every task of one plant with why its interval is what it is, in task order. Pass the plant's details when they
    /// were read already, so they are not read again.
    public func explainedSchedule(
        forPlant plantId: Int64, details: PlantDetails? = nil
    ) async throws(StoreError) -> [ScheduledTask] {
        let explanations: [IntervalExplanation]
        if let details { explanations = explain(details) } else { explanations = try await explain(plantId: plantId) }
        return try await schedule(forPlant: plantId).map { task in
            var task = task
            task.explanation = explanations.first { $0.task == task.task }
            return task
        }
    }

    /// Tasks of a due list with why their intervals are what they are (one read of each plant's log).
    public func explained(_ tasks: [ScheduledTask]) async throws(StoreError) -> [ScheduledTask] {
        var byPlant: [Int64: [IntervalExplanation]] = [:]
        var result: [ScheduledTask] = []
        for var task in tasks {
            if byPlant[task.plantId] == nil { byPlant[task.plantId] = try await explain(plantId: task.plantId) }
            task.explanation = byPlant[task.plantId]?.first { $0.task == task.task }
            result.append(task)
        }
        return result
    }

    /// Says where a plant lives (``PlantConditions``; empty: nothing said): its watering intervals are scaled at once,
    /// and what the log taught is learned again relative to them. Returns the watering as it is now.
    @discardableResult
    public func setConditions(plantId: Int64, _ conditions: PlantConditions) async throws(StoreError) -> ScheduledTask {
        let checked = try conditions.checked()
        try await store.updateScheduleSettings(plantId: plantId, task: .water) { settings in
            settings.conditions = checked.isEmpty ? nil : checked
        }
        try await relearn(plantId: plantId, task: .water)
        return try await task(.water, ofPlant: plantId)
    }

    /// The conditions said for a plant (empty when nothing is).
    public func conditions(ofPlant plantId: Int64) async throws(StoreError) -> PlantConditions {
        try await store.details(ofPlant: plantId).conditions
    }

    /// Why each task's interval of a plant is what it is today, in task order.
    public func explain(plantId: Int64) async throws(StoreError) -> [IntervalExplanation] {
        explain(try await store.details(ofPlant: plantId))
    }

    /// Why each task's interval of a plant is what it is today, in task order, from details already read.
    public func explain(_ details: PlantDetails) -> [IntervalExplanation] {
        let season = CareSeason(of: today, hemisphere: scheduler.hemisphere)
        let profile = details.profile ?? CareGuide.fallbackProfile
        return CareTask.allCases.map { task in
            let settings = details.scheduleSettings.first { $0.task == task }
            let (guide, conditioned) = intervals(task, profile: profile, settings: settings)
            let factors = settings?.conditions?.factors(season: season) ?? []
            let intervals = scheduler.effective(guide, settings: settings)
            let guideDays = season == .growing ? guide.growing : guide.rest
            let interval = season == .growing ? intervals.growing : intervals.rest
            let source: IntervalExplanation.Source
            var because: [String] = []
            if settings?.paused == true {
                source = .paused
            } else if settings?.growingDays != nil || (season == .rest && settings?.restDays != nil) {
                source = .set
            } else if interval == nil {
                source = .none
            } else {
                let learned = IntervalLearner.learns(task) ? learn(task, conditioned: conditioned, details: details) : .none
                because = learned.reasons.filter { $0.season == season }.map(\.text)
                let conditionedDays = season == .growing ? conditioned.growing : conditioned.rest
                source = because.isEmpty && interval == conditionedDays ? .guide : .learned
            }
            return IntervalExplanation(
                task: task, season: season, interval: interval, guide: guideDays, source: source, basis: profile.basis,
                conditions: source == .set || source == .paused ? [] : factors, because: because,
                text: Self.sentence(season: season, interval: interval, guide: guide, source: source, basis: profile.basis,
                                    conditions: factors, because: because)
            )
        }
    }

    /// Learns a task's intervals again from the plant's whole log and stores them.
    func relearn(plantId: Int64, task: CareTask) async throws(StoreError) {
        let details = try await store.details(ofPlant: plantId)
        let settings = details.scheduleSettings.first { $0.task == task }
        let conditioned = intervals(task, profile: details.profile ?? CareGuide.fallbackProfile, settings: settings).conditioned
        let learned = learn(task, conditioned: conditioned, details: details)
        let growing = learned.growing.flatMap(IntervalLearner.clamped), rest = learned.rest.flatMap(IntervalLearner.clamped)
        guard growing != settings?.learnedGrowing || rest != settings?.learnedRest else { return }
        try await store.updateScheduleSettings(plantId: plantId, task: task) { settings in
            settings.learnedGrowing = growing
            settings.learnedRest = rest
        }
    }

    /// A task's intervals by the guide, and as the plant's conditions scale them (what learning is relative to).
    private func intervals(
        _ task: CareTask, profile: CareProfile, settings: CareScheduleSettings?
    ) -> (guide: TaskIntervals, conditioned: TaskIntervals) {
        let guide = TaskIntervals(growing: profile.growingInterval(for: task), rest: profile.restInterval(for: task))
        return (guide, settings?.conditions.map { $0.apply(to: guide) } ?? guide)
    }

    /// What the plant's log teaches about a task, relative to its conditioned guide.
    private func learn(_ task: CareTask, conditioned: TaskIntervals, details: PlantDetails) -> LearnedIntervals {
        let settings = details.scheduleSettings.first { $0.task == task }
        return learner.learn(
            guide: (conditioned.growing, conditioned.rest), log: Self.log(details.events, task: task),
            since: settings?.learnedSince
        )
    }

    /// One task of one plant, as the schedule shows it.
    private func task(_ task: CareTask, ofPlant plantId: Int64) async throws(StoreError) -> ScheduledTask {
        guard let entry = try await schedule(forPlant: plantId).first(where: { $0.task == task }) else {
            throw .plantNotFound(plantId)
        }
        return entry
    }

    /// A task's entries of a care log, as the learner reads them.
    static func log(_ events: [CareEvent], task: CareTask) -> [CareObservation] {
        events.filter { $0.task == task }.map { CareObservation(day: $0.day, soil: $0.soil) }
    }

    /// The explanation in a sentence.
    private static func sentence(
        season: CareSeason, interval: Int?, guide: TaskIntervals, source: IntervalExplanation.Source, basis: String,
        conditions: [PlantConditions.Factor], because: [String]
    ) -> String {
        let where_ = conditions.isEmpty ? "" : "; " + conditions.map { "\($0.condition) ×\(String(format: "%.2f", $0.factor))" }
            .joined(separator: ", ")
        let guideText: String
        switch (guide.growing, guide.rest) {
        case (nil, nil): guideText = "the guide for \(basis) advises none"
        case let (growing?, rest?) where growing == rest: guideText = "the guide for \(basis) says \(growing)"
        case let (growing?, nil): guideText = "the guide for \(basis) says \(growing) in the growing season, none in winter"
        case let (nil, rest?): guideText = "the guide for \(basis) says \(rest) in winter, none in the growing season"
        case let (growing?, rest?): guideText = "the guide for \(basis) says \(season == .growing ? growing : rest) \(season.phrase)"
        }
        let every = "every \(interval.map(String.init) ?? "?") days"
        switch source {
        case .paused: return "paused for this plant"
        case .none: return "not needed \(season.phrase): \(guideText)"
        case .set: return "\(every): set by hand (\(guideText))"
        case .guide: return "\(every): \(guideText)\(where_)"
        case .learned:
            let evidence = because.isEmpty ? "learned from earlier care" : because.joined(separator: "; ")
            return "\(every): \(guideText)\(where_); \(evidence)"
        }
    }
}

extension CareStore {
    /// Records a care task done on a day.
    @discardableResult
    public func logCare(plantId: Int64, task: CareTask, day: CalendarDay, note: String?, now: Date) async throws(StoreError)
        -> CareEvent {
        try await logCare(plantId: plantId, task: task, day: day, note: note, soil: nil, now: now)
    }
}
