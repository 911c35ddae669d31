import Foundation
import GRDB
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

@Suite struct CareSchedulerTests {
    let north = CareScheduler(hemisphere: .north)
    let south = CareScheduler(hemisphere: .south)

    @Test(arguments: [
        // (last done, expected next watering) with 7 days growing, 14 days winter, northern hemisphere.
        ("2026-06-10", "2026-06-17"),  // summer: plain interval
        ("2026-12-10", "2026-12-24"),  // winter: plain winter interval
        ("2026-09-28", "2026-10-09"),  // 3 growing days use 3/7; the other 4/7 take 8 winter days
        ("2026-03-29", "2026-04-07"),  // 3 winter days use 3/14; the other 11/14 take 5.5 → 6 growing days
        ("2024-02-28", "2024-03-13"),  // leap day counted
    ])
    func wateringAcrossSeasons(last: String, expected: String) {
        let due = north.nextDue(.water, profile: .fixture(), settings: nil, lastDone: day(last), start: day("2020-01-01"))
        #expect(due == day(expected))
    }

    @Test func southernHemisphereHasWinterInJuly() {
        let due = south.nextDue(.water, profile: .fixture(), settings: nil, lastDone: day("2026-07-01"), start: day("2020-01-01"))
        #expect(due == day("2026-07-15"))
        let summer = south.nextDue(.water, profile: .fixture(), settings: nil, lastDone: day("2026-01-01"), start: day("2020-01-01"))
        #expect(summer == day("2026-01-08"))
    }

    @Test func fertilisingWaitsForSpring() {
        // Fed in late September with a 30-day interval: 3 days count, winter adds nothing, the rest
        // (27 days) runs from 1 April.
        let due = north.nextDue(.fertilize, profile: .fixture(), settings: nil, lastDone: day("2026-09-28"), start: day("2020-01-01"))
        #expect(due == day("2027-04-28"))
    }

    @Test func overridesPausesAndSnoozes() {
        var settings = CareScheduleSettings(plantId: 1, task: .water, growingDays: 3)
        #expect(north.nextDue(.water, profile: .fixture(), settings: settings, lastDone: day("2026-12-01"), start: day("2020-01-01")) == day("2026-12-04"))
        settings.restDays = 10
        #expect(north.nextDue(.water, profile: .fixture(), settings: settings, lastDone: day("2026-12-01"), start: day("2020-01-01")) == day("2026-12-11"))
        settings.snoozedUntil = day("2026-12-20")
        #expect(north.nextDue(.water, profile: .fixture(), settings: settings, lastDone: day("2026-12-01"), start: day("2020-01-01")) == day("2026-12-20"))
        // A snooze to a day before the interval ends brings the task forward: the chosen day is the due day.
        settings.snoozedUntil = day("2026-12-05")
        #expect(north.nextDue(.water, profile: .fixture(), settings: settings, lastDone: day("2026-12-01"), start: day("2020-01-01")) == day("2026-12-05"))
        settings.paused = true
        #expect(north.nextDue(.water, profile: .fixture(), settings: settings, lastDone: day("2026-12-01"), start: day("2020-01-01")) == nil)
        #expect(north.nextDue(.mist, profile: .fixture(), settings: nil, lastDone: nil, start: day("2026-01-01")) == nil)
    }

    @Test func neverDoneCountsFromTheStartDay() {
        #expect(north.nextDue(.water, profile: .fixture(), settings: nil, lastDone: nil, start: day("2026-06-01")) == day("2026-06-08"))
    }

    @Test(arguments: [
        // Instants just before and after midnight around the Berlin DST changes, and the day they are.
        ("2026-03-28T22:59:59Z", "Europe/Berlin", "2026-03-28"),
        ("2026-03-28T23:00:00Z", "Europe/Berlin", "2026-03-29"),
        ("2026-03-29T21:59:59Z", "Europe/Berlin", "2026-03-29"),  // 23:59:59 CEST
        ("2026-03-29T22:00:00Z", "Europe/Berlin", "2026-03-30"),
        ("2026-10-24T21:59:59Z", "Europe/Berlin", "2026-10-24"),
        ("2026-10-25T22:59:59Z", "Europe/Berlin", "2026-10-25"),  // 23:59:59 CET after the change
        ("2026-11-01T06:59:59Z", "America/Los_Angeles", "2026-10-31"),
        ("2026-11-02T07:59:59Z", "America/Los_Angeles", "2026-11-01"),
    ])
    func todayAcrossDaylightSavingChanges(instant: String, zone: String, expected: String) throws {
        let date = try #require(ISO8601DateFormatter().date(from: instant))
        let timeZone = try #require(TimeZone(identifier: zone))
        #expect(CalendarDay(date, in: timeZone) == day(expected))
        // Midnight at the start of that day maps back to the same day.
        #expect(CalendarDay(day(expected).start(in: timeZone), in: timeZone) == day(expected))
    }

    @Test func dueDatesDoNotDriftOverADaylightSavingChange() throws {
        // Watered on the evening before the spring change in Berlin (a 23-hour day follows).
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let evening = try #require(ISO8601DateFormatter().date(from: "2026-03-28T21:30:00Z"))
        let lastDone = CalendarDay(evening, in: berlin)
        let due = north.nextDue(.water, profile: .fixture(water: 7, winterWater: 7), settings: nil, lastDone: lastDone, start: lastDone)
        #expect(due == day("2026-04-04"))
    }

    @Test func calendarDayRoundTripsAndRejectsNonsense() {
        for text in ["1970-01-01", "2000-02-29", "2026-12-31", "1969-07-20"] {
            #expect(CalendarDay(text)?.description == text)
        }
        for text in ["2026-02-29", "2026-13-01", "2026-1-01", "tomorrow", ""] {
            #expect(CalendarDay(text) == nil)
        }
        #expect(day("2026-12-31").adding(days: 1) == day("2027-01-01"))
        #expect(day("2026-03-01").days(since: day("2026-02-01")) == 28)
    }

    /// The walk through the seasons month by month, written the plain way (a date conversion per
    /// month), as a reference for the stepping one.
    private func referenceDue(_ scheduler: CareScheduler, _ intervals: TaskIntervals, from: CalendarDay) -> CalendarDay? {
        var day = from
        var remaining = 1.0
        for _ in 0..<130 {
            let boundary = day.startOfNextMonth
            let span = Double(boundary.days(since: day))
            if let interval = scheduler.interval(on: day, intervals) {
                let needed = remaining * Double(interval)
                if needed <= span + 1e-9 { return day.adding(days: max(1, Int((needed - 1e-9).rounded(.up)))) }
                remaining -= span / Double(interval)
            }
            day = boundary
        }
        return nil
    }

    @Test func steppingThroughMonthsMatchesTheDateByDateWalk() throws {
        let first = try #require(CalendarDay("2023-01-01"))
        let shapes = [
            TaskIntervals(growing: 7, rest: 14), TaskIntervals(growing: 30, rest: nil), TaskIntervals(growing: nil, rest: 9),
            TaskIntervals(growing: 3, rest: 40), TaskIntervals(growing: 365, rest: 700), TaskIntervals(growing: 1, rest: 2),
        ]
        var checked = 0
        // Every start day over three years (a leap February included), both hemispheres.
        for offset in stride(from: 0, to: 3 * 366, by: 1) {
            let from = first.adding(days: offset)
            for scheduler in [north, south] {
                for intervals in shapes {
                    let due = scheduler.nextDue(intervals, lastDone: from, start: from, snoozedUntil: nil)
                    #expect(due == referenceDue(scheduler, intervals, from: from), "from \(from), \(intervals)")
                    checked += 1
                }
            }
        }
        #expect(checked == 3 * 366 * 2 * shapes.count)
    }
}

@Suite struct DatabaseTimestampTests {
    @Test(arguments: [0.0, 1_780_000_000.123, 951_782_400.5, 1_709_164_799.999, 4_102_444_800.001])
    func readsWhatGRDBWrites(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        guard case .string(let text) = date.databaseValue.storage else {
            Issue.record("GRDB stored a date as something other than text")
            return
        }
        let parsed = try #require(DatabaseTimestamp.parse(text))
        let reference = try #require(Date.fromDatabaseValue(date.databaseValue))
        #expect(abs(parsed.timeIntervalSince(reference)) < 0.000_5, "\(text)")
    }

    @Test(arguments: ["", "2026-01-01", "2026-13-01 00:00:00", "2026-01-01 25:00:00", "2026-01-01 10:00:00.12x", "yesterday at noon!!"])
    func refusesOtherText(text: String) {
        #expect(DatabaseTimestamp.parse(text) == nil)
    }
}
