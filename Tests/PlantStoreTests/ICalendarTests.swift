import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore

/// A small RFC 5545 reader for the tests: unfolds lines, splits properties and unescapes text.
private struct ParsedCalendar {
    struct Property {
        var name: String
        var parameters: [String: String]
        var value: String
    }

    var events: [[String: Property]] = []

    init(_ text: String) throws {
        #expect(text.hasSuffix("\r\n"))
        let physical = text.components(separatedBy: "\r\n").dropLast()
        for line in physical {
            #expect(line.utf8.count <= 75, "line longer than 75 octets: \(line)")
            #expect(!line.contains("\n") && !line.contains("\r"), "bare line break in \(line)")
        }
        var logical: [String] = []
        for line in physical {
            if line.hasPrefix(" ") || line.hasPrefix("\t"), let last = logical.popLast() {
                logical.append(last + line.dropFirst())
            } else {
                logical.append(line)
            }
        }
        #expect(logical.first == "BEGIN:VCALENDAR")
        #expect(logical.last == "END:VCALENDAR")
        var current: [String: Property]?
        var inAlarm = false
        for line in logical {
            let colon = try #require(line.firstIndex(of: ":"))
            let head = line[..<colon].split(separator: ";").map(String.init)
            let name = try #require(head.first)
            var parameters: [String: String] = [:]
            for parameter in head.dropFirst() {
                let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                parameters[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            let value = Self.unescape(String(line[line.index(after: colon)...]))
            switch (name, value) {
            case ("BEGIN", "VALARM"): inAlarm = true
            case ("END", "VALARM"): inAlarm = false
            case (_, _) where inAlarm: current?["VALARM." + name] = Property(name: name, parameters: parameters, value: value)
            case ("BEGIN", "VEVENT"): current = [:]
            case ("END", "VEVENT"):
                events.append(try #require(current))
                current = nil
            default: current?[name] = Property(name: name, parameters: parameters, value: value)
            }
        }
    }

    static func unescape(_ text: String) -> String {
        var result = "", escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

@Suite struct ICalendarTests {
    private func task(_ name: String, room: String?, due: String, uuid: String = "3f2504e0-4f89-11d3-9a0c-0305e82c3301") -> ScheduledTask {
        ScheduledTask(
            plantId: 7, plantUUID: uuid, plantName: name, room: room, task: .water, dueOn: day(due),
            lastDone: day("2026-05-30"), intervalDays: 7, snoozedUntil: nil, paused: false, overdueDays: 0
        )
    }

    @Test func writesEventsThatParseBackExactly() throws {
        let name = "Monstera «Thai Constellation», the big one; with a very long name that needs folding 🌿🌿🌿 across lines"
        let room = "Living room\\upstairs, left"
        let text = ICalendarWriter(now: Date(timeIntervalSince1970: 1_780_000_000))
            .calendar(for: [task(name, room: room, due: "2026-06-07"), task("Fern", room: nil, due: "2026-05-20", uuid: "other")],
                      today: day("2026-06-01"))
        let calendar = try ParsedCalendar(text)
        #expect(calendar.events.count == 2)
        let event = try #require(calendar.events.first)
        #expect(event["SUMMARY"]?.value == "Water \(name)")
        #expect(event["LOCATION"]?.value == room)
        #expect(event["DTSTART"]?.parameters["VALUE"] == "DATE")
        #expect(event["DTSTART"]?.value == "20260607")
        #expect(event["DTEND"]?.value == "20260608")
        #expect(event["UID"]?.value == "3f2504e0-4f89-11d3-9a0c-0305e82c3301-water@plantguide")
        #expect(event["DTSTAMP"]?.value == "20260528T202640Z")
        #expect(event["DESCRIPTION"]?.value.contains("\nLast watered 2026-05-30.") == true)
        // An overdue task is placed on today and says so.
        let overdue = try #require(calendar.events.last)
        #expect(overdue["DTSTART"]?.value == "20260601")
        #expect(overdue["DESCRIPTION"]?.value.contains("Overdue since 2026-05-20.") == true)
        #expect(overdue["LOCATION"] == nil)
        // Each event alerts at 08:00 local (the all-day event starts at local midnight).
        #expect(event["VALARM.ACTION"]?.value == "DISPLAY")
        #expect(event["VALARM.TRIGGER"]?.value == "PT8H" && event["VALARM.TRIGGER"]?.parameters["RELATED"] == "START")
        #expect(event["VALARM.DESCRIPTION"]?.value == "Water \(name)")
    }

    @Test func theAlarmFollowsTheReminderTimeOrIsLeftOut() throws {
        let tasks = [task("Fern", room: nil, due: "2026-06-07")]
        func trigger(_ minute: Int?) throws -> String? {
            let text = ICalendarWriter(now: Date(timeIntervalSince1970: 1_780_000_000), alarmMinute: minute)
                .calendar(for: tasks, today: day("2026-06-01"))
            return try ParsedCalendar(text).events.first?["VALARM.TRIGGER"]?.value
        }
        #expect(try trigger(450) == "PT7H30M")
        #expect(try trigger(0) == "PT0S")
        #expect(try trigger(45) == "PT45M")
        #expect(try trigger(nil) == nil)
    }

    @Test func foldingNeverSplitsACharacter() {
        let line = "SUMMARY:" + String(repeating: "é🌿", count: 40)
        let folded = ICalendarWriter.fold(line)
        let pieces = folded.components(separatedBy: "\r\n")
        #expect(pieces.count > 2)
        for piece in pieces {
            #expect(piece.utf8.count <= 75)
        }
        #expect(pieces.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(pieces.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined() == line)
    }

    @Test func uidsStayTheSameWhenTheScheduleMoves() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let clock = TestClock("2026-06-01T09:00:00Z")
        let planner = CarePlanner(store: database, hemisphere: .north, timeZone: TimeZone(identifier: "UTC") ?? .current) { clock.now }
        let plant = try database.addPlant(NewPlant(name: "Fern", room: "Bath"), profile: .fixture(water: 3), now: clock.now)
        clock.advance(days: 5)
        let writer = ICalendarWriter(now: clock.now)
        let before = try ParsedCalendar(writer.calendar(for: await planner.upcoming(through: planner.today.adding(days: 30)), today: planner.today))
        try await planner.markDone(plantId: plant.id, task: .water)
        let after = try await ParsedCalendar(writer.calendar(for: planner.upcoming(through: planner.today.adding(days: 30)), today: planner.today))
        let uid = "\(plant.uuid)-water@plantguide"
        let old = try #require(before.events.first { $0["UID"]?.value == uid })
        let new = try #require(after.events.first { $0["UID"]?.value == uid })
        #expect(old["DTSTART"]?.value == "20260606")
        #expect(new["DTSTART"]?.value == "20260609")
        #expect(Set(before.events.compactMap { $0["UID"]?.value }) == Set(after.events.compactMap { $0["UID"]?.value }))
    }
}
