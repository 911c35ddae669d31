import Foundation
import PlantGuideTestSupport
import Testing

@Suite struct CareCommandTests {
    @Test func dueDoneSnoozeAndScheduleWorkTogether() throws {
        var runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Ladyfinger cactus", "--room", "Office", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Moth orchid", "--json"])
        // Nothing is due on the day the plants arrive.
        let today = try runner.jsonObject(["care", "due", "--days", "0", "--json"])
        #expect((today["rooms"] as? [Any])?.isEmpty == true)
        // Ten days later the fern (every 4 days in summer) is overdue; the cactus (14) is not due for 4 days.
        runner.environment["PLANTGUIDE_NOW"] = "2026-06-11T09:00:00Z"
        let due = try runner.jsonObject(["care", "due", "--days", "2", "--json"])
        let rooms = try #require(due["rooms"] as? [[String: Any]])
        #expect(rooms.compactMap { $0["room"] as? String } == ["Bathroom"])
        #expect(rooms.count == 2)  // and the orchid, without a room, last
        let fernTasks = try #require(rooms.first?["tasks"] as? [[String: Any]])
        let water = try #require(fernTasks.first { $0["task"] as? String == "water" })
        #expect(water["overdueDays"] as? Int == 6)
        #expect(water["dueOn"] as? String == "2026-06-05")
        let text = try runner.run(["care", "due"])
        #expect(text.stdout.contains("Bathroom") && text.stdout.contains("overdue 6 days"))
        // The terminal's language, first of LC_ALL, LC_MESSAGES and LANG; --json the same in every language.
        let english = try runner.jsonObject(["care", "due", "--json"])
        for (environment, says) in [
            (["LANG": "fr_FR.UTF-8"], "en retard de 6 jours (à faire le 2026-06-05)"),
            (["LC_ALL": "", "LC_MESSAGES": "de_AT.UTF-8", "LANG": "fr_FR.UTF-8"], "seit 6 Tagen überfällig (fällig am 2026-06-05)"),
            (["LANG": "es_ES.UTF-8"], "con 6 días de retraso (para el 2026-06-05)"),
            (["LC_ALL": "C", "LANG": "fr_FR.UTF-8"], "overdue 6 days (due 2026-06-05)"),
        ] {
            var localized = runner
            localized.environment.merge(environment) { _, new in new }
            let output = try localized.run(["care", "due"])
            #expect(output.status == 0 && output.stdout.contains(says), "\(environment): \(output.stdout)")
            #expect(output.stdout.contains("Bathroom"), "a room's name is the household's own")
            let json = try localized.jsonObject(["care", "due", "--json"])
            #expect(NSDictionary(dictionary: json).isEqual(to: english), "\(environment): --json changed")
        }
        var inFrench = runner
        inFrench.environment["LANG"] = "fr_FR.UTF-8"
        let french = try inFrench.run(["care", "due"])
        #expect(french.stdout.contains("arroser") && french.stdout.contains("5 tâches, 3 en retard") && french.stdout.contains("fertiliser Moth orchid"), "\(french.stdout)")

        let done = try runner.jsonObject(["care", "done", "1", "water", "--json"])
        #expect((done["event"] as? [String: Any])?["day"] as? String == "2026-06-11")
        #expect((done["next"] as? [String: Any])?["dueOn"] as? String == "2026-06-15")
        let past = try runner.jsonObject(["care", "done", "1", "mist", "--date", "2026-06-09", "--json"])
        #expect((past["next"] as? [String: Any])?["dueOn"] as? String == "2026-06-13")
        #expect(try runner.run(["care", "done", "1", "water", "--date", "2026-07-01"]).status != 0)
        #expect(try runner.run(["care", "done", "1", "dance"]).status != 0)
        #expect(try runner.run(["care", "done", "99", "water"]).status != 0)

        let snoozed = try runner.jsonObject(["care", "snooze", "1", "mist", "--days", "5", "--json"])
        #expect(snoozed["dueOn"] as? String == "2026-06-16")
        #expect(snoozed["snoozedUntil"] as? String == "2026-06-16")
        #expect(try runner.run(["care", "snooze", "1", "mist", "--days", "0"]).status != 0)
        #expect(try runner.run(["care", "snooze", "1", "mist"]).status != 0)

        let schedule = try runner.jsonArray(["care", "schedule", "1", "--json"])
        #expect(schedule.count == 5)
        #expect(schedule.first { $0["task"] as? String == "water" }?["lastDone"] as? String == "2026-06-11")
        let changed = try runner.jsonArray(["care", "schedule", "1", "--task", "water", "--every", "2", "--json"])
        #expect(changed.first { $0["task"] as? String == "water" }?["dueOn"] as? String == "2026-06-13")
        let paused = try runner.jsonArray(["care", "schedule", "1", "--task", "water", "--pause", "--json"])
        #expect(paused.first { $0["task"] as? String == "water" }?["dueOn"] == nil)
        #expect(try runner.run(["care", "schedule", "1", "--every", "3"]).status != 0)
        let shown = try runner.run(["care", "schedule", "1"])
        #expect(shown.stdout.contains("paused"))
    }

    @Test func soilChecksTeachTheIntervalAndEveryDateSaysWhy() throws {
        var runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Maidenhair fern", "--room", "Bathroom", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Moth orchid", "--json"])
        // Both bathroom plants watered yesterday, in one go.
        let both = try runner.jsonArray(["care", "done", "water", "--room", "bathroom", "--date", "yesterday", "--json"])
        #expect(both.count == 2)
        #expect(both.allSatisfy { ($0["event"] as? [String: Any])?["day"] as? String == "2026-05-31" })
        // The fern (every 4 days) comes due; its soil is still wet: the watering moves and the interval grows.
        runner.environment["PLANTGUIDE_NOW"] = "2026-06-04T09:00:00Z"
        let checked = try runner.jsonObject(["care", "check", "1", "water", "--wet", "--json"])
        let next = try #require(checked["next"] as? [String: Any])
        #expect((checked["event"] as? [String: Any])?["soil"] as? String == "wet")
        #expect((next["dueOn"] as? String ?? "") > "2026-06-04")
        #expect((next["intervalDays"] as? Int ?? 0) > 4)
        #expect(next["lastDone"] as? String == "2026-05-31")
        let explanation = try #require(checked["explanation"] as? [String: Any])
        #expect(explanation["guide"] as? Int == 4 && explanation["source"] as? String == "learned")
        #expect((explanation["because"] as? [String])?.first?.contains("still wet when due once in June 2026") == true)
        // The plant's page in the terminal, `care due --explain` and `collection show --json` say why.
        let schedule = try runner.run(["care", "schedule", "1"])
        #expect(schedule.stdout.contains("the guide for genus Nephrolepis says 4 in the growing season; the soil was still wet"))
        let shown = try runner.jsonObject(["collection", "show", "1", "--json"])
        let water = try #require((shown["schedule"] as? [[String: Any]])?.first { $0["task"] as? String == "water" })
        #expect((water["explanation"] as? [String: Any])?["interval"] as? Int == next["intervalDays"] as? Int)
        let explained = try runner.run(["care", "due", "--days", "30", "--explain"])
        #expect(explained.stdout.contains("says 4 in the growing season"))
        // Undo removes the check; the guide's 4 days come back.
        let undone = try runner.jsonObject(["care", "undo", "1", "--json"])
        #expect((undone["removed"] as? [String: Any])?["soil"] as? String == "wet")
        let back = try #require((undone["schedule"] as? [[String: Any]])?.first { $0["task"] as? String == "water" })
        #expect(back["intervalDays"] as? Int == 4 && back["dueOn"] as? String == "2026-06-04")
        // Refused, nothing logged: no reading, both readings, another task, a future day, an unknown plant or room.
        for arguments in [
            ["care", "check", "1"], ["care", "check", "1", "--wet", "--dry"], ["care", "check", "1", "mist", "--wet"],
            ["care", "check", "1", "--wet", "--date", "2026-06-05"], ["care", "check", "99", "--wet"],
            ["care", "done", "water", "--room", "Attic"], ["care", "done", "1", "2", "water", "--room", "Bathroom"],
            ["care", "done", "1", "99", "water"], ["care", "done", "1", "1", "water"], ["care", "done", "--due"],
        ] {
            let result = try runner.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
        }
        let log = try runner.jsonObject(["collection", "show", "1", "--json"])
        #expect((log["events"] as? [Any])?.count == 1)
        // Everything due today, at once.
        let dueList = try runner.jsonObject(["care", "due", "--days", "0", "--json"])
        let dueWater = ((dueList["rooms"] as? [[String: Any]]) ?? []).flatMap { ($0["tasks"] as? [[String: Any]]) ?? [] }
            .filter { $0["task"] as? String == "water" }.compactMap { $0["plantId"] as? Int }
        #expect(dueWater.contains(1))
        let dueNow = try runner.jsonArray(["care", "done", "water", "--due", "--json"])
        #expect(dueNow.compactMap { ($0["event"] as? [String: Any])?["plantId"] as? Int } == dueWater)
        let after = try runner.jsonObject(["care", "due", "--days", "0", "--json"])
        #expect(!(((after["rooms"] as? [[String: Any]]) ?? []).flatMap { ($0["tasks"] as? [[String: Any]]) ?? [] }
            .contains { $0["task"] as? String == "water" }))
        let nothing = try runner.run(["care", "undo", "3"])
        #expect(nothing.status != 0 && nothing.stderr.contains("nothing to undo"))
    }

    @Test func conditionsScaleTheWateringOfAPlantOrARoom() throws {
        let runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Maidenhair fern", "--room", "Bathroom", "--json"])
        // A big self-watering pot: the fern's 4 days grow (×√(30/15) × 1.5, within 2×).
        let shown = try runner.jsonObject(["care", "conditions", "1", "--pot", "30", "--material", "self-watering", "--json"])
        #expect((shown["conditions"] as? [String: Any])?["potCentimetres"] as? Int == 30)
        #expect((shown["water"] as? [String: Any])?["intervalDays"] as? Int == 8)
        let explanation = ((shown["water"] as? [String: Any])?["explanation"] as? [String: Any])?["text"] as? String ?? ""
        #expect(explanation.contains("pot 30 cm ×1.40, self-watering pot ×1.50"))
        // Every plant of a room: options not given keep their value.
        let room = try runner.jsonArray(["care", "conditions", "--room", "bathroom", "--light", "low", "--json"])
        #expect(room.count == 2)
        #expect((room.first?["conditions"] as? [String: Any])?["potMaterial"] as? String == "self-watering")
        #expect(room.allSatisfy { ($0["conditions"] as? [String: Any])?["light"] as? String == "low" })
        let text = try runner.run(["care", "conditions", "1"])
        #expect(text.stdout.contains("pot 30 cm, self-watering, low light"))
        // Refused, nothing changed.
        for arguments in [
            ["care", "conditions", "1", "--pot", "0"], ["care", "conditions", "1", "--pot", "1000"],
            ["care", "conditions", "1", "--light", "dim"], ["care", "conditions", "--room", "Attic", "--heater"],
            ["care", "conditions", "1", "--clear", "--heater"], ["care", "conditions"], ["care", "conditions", "99", "--heater"],
        ] {
            let result = try runner.run(arguments)
            #expect(result.status != 0 && !result.stderr.isEmpty, "\(arguments)")
        }
        let cleared = try runner.jsonObject(["care", "conditions", "1", "--clear", "--json"])
        #expect((cleared["water"] as? [String: Any])?["intervalDays"] as? Int == 4)
    }

    @Test func theHouseholdsHemisphereAndTimeZoneApplyAtOnce() throws {
        let runner = try collectionRunner(now: "2026-06-01T13:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--json"])
        func waterInterval() throws -> Int? {
            try runner.jsonArray(["care", "schedule", "1", "--json"]).first { $0["task"] as? String == "water" }?["intervalDays"] as? Int
        }
        // June in the north: the growing season's 4 days.
        #expect(try waterInterval() == 4)
        let shown = try runner.jsonObject(["household", "set", "--json"])
        #expect(shown["hemisphere"] as? String == "north" && shown["hemisphereIsSet"] as? Bool == false)
        let set = try runner.jsonObject(["household", "set", "--hemisphere", "south", "--time-zone", "Pacific/Auckland", "--json"])
        #expect(set["hemisphere"] as? String == "south" && set["hemisphereIsSet"] as? Bool == true)
        #expect(set["timeZone"] as? String == "Pacific/Auckland" && set["timeZoneIsSet"] as? Bool == true)
        // June in the south is winter: 7 days. 13:00 UTC is already tomorrow in Auckland.
        #expect(try waterInterval() == 7)
        let done = try runner.jsonObject(["care", "done", "1", "water", "--json"])
        #expect((done["event"] as? [String: Any])?["day"] as? String == "2026-06-02")
        // Refused, nothing changed.
        for arguments in [
            ["household", "set", "--hemisphere", "east"], ["household", "set", "--time-zone", "Mars/Olympus_Mons"],
            ["household", "set", "--time-zone", "../../etc/passwd"],
        ] {
            let result = try runner.run(arguments)
            #expect(result.status != 0 && !result.stderr.isEmpty, "\(arguments)")
        }
        #expect(try runner.jsonObject(["household", "set", "--json"])["timeZone"] as? String == "Pacific/Auckland")
        // A zone the system knows without listing it.
        #expect(try runner.jsonObject(["household", "set", "--time-zone", "Etc/UTC", "--json"])["timeZone"] as? String == "Etc/UTC")
        // Back to the defaults: the environment's north and UTC.
        let reset = try runner.jsonObject(["household", "set", "--hemisphere", "default", "--time-zone", "default", "--json"])
        #expect(reset["hemisphereIsSet"] as? Bool == false && reset["timeZoneIsSet"] as? Bool == false)
        #expect(try waterInterval() == 4)
    }

    @Test func snoozeMovesTheDayCareDueAndTheCalendarShow() throws {
        let runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        // The fern is watered every 4 days: due 2026-06-05, so nothing is due in the next 2 days.
        let before = try runner.jsonObject(["care", "due", "--days", "2", "--json"])
        #expect((before["rooms"] as? [Any])?.isEmpty == true)
        let snoozed = try runner.run(["care", "snooze", "1", "water", "--days", "2"])
        #expect(snoozed.stdout.contains("until 2026-06-03"))
        let due = try runner.jsonObject(["care", "due", "--days", "2", "--json"])
        let rooms = try #require(due["rooms"] as? [[String: Any]])
        let tasks = try #require(rooms.first?["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["task"] as? String } == ["water"])
        #expect(tasks.first?["dueOn"] as? String == "2026-06-03")
        // The calendar's watering event is on the snooze day too.
        let events = try runner.run(["care", "ics"]).stdout.components(separatedBy: "BEGIN:VEVENT").dropFirst()
        let watering = try #require(events.first { $0.contains("CATEGORIES:water") })
        #expect(watering.contains("DTSTART;VALUE=DATE:20260603"))
    }

    @Test func winterStretchesTheSchedule() throws {
        var runner = try collectionRunner(now: "2026-12-01T09:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--json"])
        let north = try runner.jsonArray(["care", "schedule", "1", "--json"])
        #expect(north.first { $0["task"] as? String == "water" }?["dueOn"] as? String == "2026-12-08")
        runner.environment["PLANTGUIDE_HEMISPHERE"] = "south"
        let south = try runner.jsonArray(["care", "schedule", "1", "--json"])
        #expect(south.first { $0["task"] as? String == "water" }?["dueOn"] as? String == "2026-12-05")
        runner.environment["PLANTGUIDE_HEMISPHERE"] = "west"
        #expect(try runner.run(["care", "schedule", "1"]).status != 0)
    }

    @Test func icsExportHasStableUIDsAndMovesEventsWhenDone() throws {
        var runner = try collectionRunner(now: "2026-06-01T09:00:00Z")
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bath, upstairs; left", "--json"])
        runner.environment["PLANTGUIDE_NOW"] = "2026-06-10T09:00:00Z"
        let file = runner.home.appendingPathComponent("care.ics")
        let summary = try runner.jsonObject(["care", "ics", "--output", file.path, "--json"])
        #expect(summary["file"] as? String == file.path)
        let first = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(first.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(first.contains("LOCATION:Bath\\, upstairs\\; left"))
        _ = try runner.run(["care", "done", "1", "water"])
        let second = try runner.run(["care", "ics"])
        #expect(second.status == 0)
        func uids(_ text: String) -> [String] {
            text.components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") }
        }
        #expect(!uids(first).isEmpty)
        #expect(Set(uids(second.stdout)).isSubset(of: Set(uids(first))))
        #expect(first.contains("DTSTART;VALUE=DATE:20260610"))  // overdue water placed on today
        #expect(second.stdout.contains("DTSTART;VALUE=DATE:20260614"))
        let json = try runner.jsonObject(["care", "ics", "--json"])
        #expect((json["calendar"] as? String)?.hasPrefix("BEGIN:VCALENDAR") == true)
        #expect(json["events"] as? Int ?? 0 > 0)
        #expect(summary["events"] as? Int ?? 0 > 0)
        // The stamp follows the injected clock.
        #expect(second.stdout.contains("DTSTAMP:20260610T090000Z"))
    }
}
