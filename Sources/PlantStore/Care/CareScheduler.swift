import PlantGuideCore

/// Works out when a care task is next due.
///
/// A task's need builds up day by day at the rate of the season the day is in: with a 7-day
/// interval in the growing season and 14 in winter, a plant watered three days before winter
/// starts has used 3/7 of its interval, and the remaining 4/7 takes 8 winter days. Seasons change on
/// the first of a month (see ``Hemisphere/isRestSeason(month:)``). Days are calendar days, so
/// daylight-saving changes cannot shift a due date.
public struct CareScheduler: Sendable {
    /// Which months are winter.
    public var hemisphere: Hemisphere

    /// A scheduler for plants in `hemisphere`.
    public init(hemisphere: Hemisphere) {
        self.hemisphere = hemisphere
    }

    /// The intervals in force for a task: the plant's own settings over the profile's. An override
    /// of the growing interval alone applies all year.
    public func intervals(for task: CareTask, profile: CareProfile, settings: CareScheduleSettings?) -> TaskIntervals {
        effective(TaskIntervals(growing: profile.growingInterval(for: task), rest: profile.restInterval(for: task)), settings: settings)
    }

    /// `base` with a plant's own settings applied: paused, intervals set by hand, else the guide's scaled by where the
    /// plant lives (``PlantConditions``) with what was learned from the care log (see ``IntervalLearner``).
    public func effective(_ base: TaskIntervals, settings: CareScheduleSettings?) -> TaskIntervals {
        guard let settings else { return base }
        if settings.paused { return TaskIntervals(growing: nil, rest: nil) }
        if let growing = settings.growingDays { return TaskIntervals(growing: growing, rest: settings.restDays ?? growing) }
        let learnedGrowing = settings.learnedGrowing, learnedRest = settings.learnedRest
        let base = settings.conditions.map { $0.apply(to: base) } ?? base
        return TaskIntervals(
            growing: base.growing.map { IntervalLearner.interval(guide: $0, factor: learnedGrowing) },
            rest: settings.restDays ?? base.rest.map { IntervalLearner.interval(guide: $0, factor: learnedRest) }
        )
    }

    /// The interval that applies on `day`, if the task is done in that season.
    public func interval(on day: CalendarDay, _ intervals: TaskIntervals) -> Int? {
        hemisphere.isRestSeason(month: day.month) ? intervals.rest : intervals.growing
    }

    /// The day the task is next due, or `nil` if it is not scheduled (paused, or never advised). A
    /// snoozed task is due on the day it was snoozed until, earlier or later than its interval says:
    /// that is the day the user chose.
    /// - Parameters:
    ///   - lastDone: the day it was last done; `start` is used when it never was.
    ///   - start: the day tracking began (the day the plant was added).
    public func nextDue(
        _ task: CareTask, profile: CareProfile, settings: CareScheduleSettings?, lastDone: CalendarDay?,
        start: CalendarDay
    ) -> CalendarDay? {
        nextDue(intervals(for: task, profile: profile, settings: settings), lastDone: lastDone, start: start,
                snoozedUntil: settings?.snoozedUntil)
    }

    /// The next due day for effective `intervals` (see ``effective(_:settings:)``).
    public func nextDue(
        _ intervals: TaskIntervals, lastDone: CalendarDay?, start: CalendarDay, snoozedUntil: CalendarDay?
    ) -> CalendarDay? {
        guard intervals.growing != nil || intervals.rest != nil else { return nil }
        if let snoozedUntil { return snoozedUntil }
        let from = lastDone ?? start
        // The same interval all year needs no walk through the seasons.
        if intervals.growing == intervals.rest, let interval = intervals.growing {
            return from.adding(days: interval)
        }
        var day = from
        var remaining = 1.0
        // Work out the calendar date once, then step whole months: the due list walks thousands of
        // these, and converting a day number to a date each step was a large part of its time.
        var (year, month, dayOfMonth) = from.components
        // Each pass covers one month; intervals are at most 3650 days, so 130 months always suffice.
        for _ in 0..<130 {
            let boundary = day.adding(days: Self.daysIn(month: month, year: year) - dayOfMonth + 1)
            let span = Double(boundary.days(since: day))
            if let interval = hemisphere.isRestSeason(month: month) ? intervals.rest : intervals.growing {
                let needed = remaining * Double(interval)
                if needed <= span + 1e-9 {
                    return day.adding(days: max(1, Int((needed - 1e-9).rounded(.up))))
                }
                remaining -= span / Double(interval)
            }
            day = boundary
            dayOfMonth = 1
            if month == 12 { (year, month) = (year + 1, 1) } else { month += 1 }
        }
        return nil
    }

    /// Days in a month of the proleptic Gregorian calendar.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
