import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// A planner over a new collection file, in the north, on UTC days, its clock at 2026-06-01 10:00 UTC.
private func plannerOnANewCollection() throws -> (TemporaryHome, CollectionDatabase, TestClock, CarePlanner) {
    let home = try TemporaryHome()
    let database = try home.open()
    let clock = TestClock("2026-06-01T10:00:00Z")
    let planner = CarePlanner(store: database, hemisphere: .north, timeZone: TimeZone(identifier: "UTC") ?? .current) {
        clock.now
    }
    return (home, database, clock, planner)
}

@Suite struct CarePlannerTests {
    private func setUp() throws -> (TemporaryHome, CollectionDatabase, TestClock, CarePlanner) { try plannerOnANewCollection() }

    @Test func dueListGroupsByRoomAndFindsOverdueTasks() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let fern = try database.addPlant(NewPlant(name: "Fern", room: "Bathroom"), profile: .fixture(water: 3), now: clock.now)
        let cactus = try database.addPlant(NewPlant(name: "Cactus", room: "Office"), profile: .fixture(water: 14, winterWater: 30), now: clock.now)
        let loose = try database.addPlant(NewPlant(name: "Pothos"), profile: .fixture(water: 7), now: clock.now)
        #expect(try await planner.due(withinDays: 0).tasks.isEmpty)
        clock.advance(days: 5)
        let today = try await planner.due(withinDays: 0)
        #expect(today.tasks.map(\.plantId) == [fern.id])
        #expect(today.tasks.first?.overdueDays == 2)
        let week = try await planner.due(withinDays: 7)
        #expect(week.rooms.map(\.room) == ["Bathroom", nil])
        #expect(week.tasks.contains { $0.plantId == loose.id && $0.task == .water })
        #expect(!week.tasks.contains { $0.plantId == cactus.id })
        let month = try await planner.due(withinDays: 30)
        #expect(month.rooms.map(\.room) == ["Bathroom", "Office", nil])
        #expect(try await planner.due(withinDays: 30, room: "office").tasks.allSatisfy { $0.plantId == cactus.id })
    }

    @Test func dueTasksComeMostOverdueFirstThenByPlantAndTask() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let seeds = (0..<12).map { index in
            PlantSeed(plant: NewPlant(name: "Plant \(index)", room: "Hall"), profile: .fixture(water: 2 + index % 3, fertilize: 4))
        }
        try database.addPlants(seeds, now: clock.now)
        clock.advance(days: 9)
        let tasks = try await planner.due(withinDays: 0).tasks
        #expect(tasks.count == 24)
        let keys = tasks.map { [$0.dueOn?.dayNumber ?? 0, Int($0.plantId), CareTask.allCases.firstIndex(of: $0.task) ?? 0] }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(tasks.first?.overdueDays == 7)
        #expect(Set(tasks.map(\.plantId)).count == 12)
    }

    @Test func manyRoomsGroupByExactNameInOrder() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        // More than a handful of rooms, names differing only by case, and plants without a room.
        let rooms: [String?] = (0..<20).map { "Room \(19 - $0)" } + ["kitchen", "Kitchen", nil]
        let seeds = (0..<69).map { index in
            PlantSeed(plant: NewPlant(name: "Plant \(index)", room: rooms[index % rooms.count]), profile: .fixture(water: 2 + index % 4))
        }
        try database.addPlants(seeds, now: clock.now)
        clock.advance(days: 6)
        let list = try await planner.due(withinDays: 2)
        let all = try await planner.upcoming(through: list.through)
        #expect(list.tasks.count == all.count)
        #expect(Set(list.tasks) == Set(all))
        #expect(list.rooms.count == rooms.count)
        #expect(list.rooms.last?.room == nil)
        for group in list.rooms {
            #expect(group.tasks.allSatisfy { $0.room == group.room })
            // Within a room: the same order as the whole list.
            #expect(group.tasks == all.filter { $0.room == group.room })
        }
        let named = list.rooms.compactMap(\.room)
        #expect(named == named.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending })
        #expect(Set(named.filter { $0.lowercased() == "kitchen" }) == ["kitchen", "Kitchen"])
        let kitchen = try database.plants(room: "KITCHEN")
        #expect(kitchen.count == 6)
        #expect(kitchen.map(\.name) == kitchen.map(\.name).sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending })
    }

    @Test func markingDoneLogsAnEventAndMovesTheSchedule() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let plant = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(water: 3), now: clock.now)
        clock.advance(days: 10)
        let before = try #require(try await planner.schedule(forPlant: plant.id).first { $0.task == .water })
        #expect(before.isOverdue)
        let (event, next) = try await planner.markDone(plantId: plant.id, task: .water, note: "with rain water")
        #expect(event.day == planner.today)
        #expect(event.note == "with rain water")
        #expect(next.dueOn == planner.today.adding(days: 3))
        #expect(next.lastDone == planner.today)
        #expect(!next.isOverdue)
        // A past date is fine, a future one is refused.
        let (_, earlier) = try await planner.markDone(plantId: plant.id, task: .fertilize, on: planner.today.adding(days: -2))
        #expect(earlier.dueOn == planner.today.adding(days: 28))
        await #expect(throws: StoreError.self) { try await planner.markDone(plantId: plant.id, task: .water, on: planner.today.adding(days: 1)) }
        #expect(try database.events(plantId: plant.id).count == 2)
        await #expect(throws: StoreError.self) { try await planner.markDone(plantId: 999, task: .water) }
    }

    @Test func snoozeDelaysUntilDoneClearsIt() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let plant = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(water: 3), now: clock.now)
        clock.advance(days: 4)
        let snoozed = try await planner.snooze(plantId: plant.id, task: .water, days: 2)
        #expect(snoozed.dueOn == planner.today.adding(days: 2))
        #expect(try await planner.due(withinDays: 0).tasks.isEmpty)
        clock.advance(days: 2)
        #expect(try await planner.due(withinDays: 0).tasks.map(\.task) == [.water])
        try await planner.markDone(plantId: plant.id, task: .water)
        let after = try #require(try await planner.schedule(forPlant: plant.id).first { $0.task == .water })
        #expect(after.snoozedUntil == nil)
        await #expect(throws: StoreError.self) { try await planner.snooze(plantId: plant.id, task: .water, days: 0) }
    }

    @Test func snoozeSetsTheDueDayInTheDueListScheduleAndCalendar() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let plant = try database.addPlant(NewPlant(name: "Snake plant", room: "Bedroom"), profile: .fixture(water: 10), now: clock.now)
        // Due in 10 days; snoozed for 3, it is due in 3, wherever due days are read.
        let snoozed = try await planner.snooze(plantId: plant.id, task: .water, days: 3)
        let snoozeDay = planner.today.adding(days: 3)
        #expect(snoozed.dueOn == snoozeDay)
        #expect(snoozed.snoozedUntil == snoozeDay)
        #expect(try await planner.due(withinDays: 2).tasks.isEmpty)
        let due = try await planner.due(withinDays: 3).tasks
        #expect(due.map(\.task) == [.water])
        #expect(due.first?.dueOn == snoozeDay)
        #expect(try await planner.schedule(forPlant: plant.id).first { $0.task == .water }?.dueOn == snoozeDay)
        let upcoming = try await planner.upcoming(through: planner.today.adding(days: 5))
        #expect(upcoming.map(\.dueOn) == [snoozeDay])
        let calendar = ICalendarWriter(now: clock.now).calendar(for: upcoming, today: planner.today)
        #expect(calendar.contains("DTSTART;VALUE=DATE:20260604"))
        // Done on the snooze day: the snooze is gone and the interval counts from then.
        clock.advance(days: 3)
        let (_, next) = try await planner.markDone(plantId: plant.id, task: .water)
        #expect(next.snoozedUntil == nil)
        #expect(next.dueOn == planner.today.adding(days: 10))
    }

    @Test func seasonChangeMovesTheNextWatering() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        clock.set("2026-09-28T08:00:00Z")
        let plant = try database.addPlant(NewPlant(name: "Ficus"), profile: .fixture(water: 7, winterWater: 14), now: clock.now)
        let (_, next) = try await planner.markDone(plantId: plant.id, task: .water)
        #expect(next.dueOn == day("2026-10-09"))
        #expect(next.intervalDays == 14)
    }
}

@Suite struct CareLearningPlannerTests {
    private func setUp() throws -> (TemporaryHome, CollectionDatabase, TestClock, CarePlanner) { try plannerOnANewCollection() }

    @Test func soilStillWetMovesTheWateringAndTeachesTheInterval() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let fern = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(water: 7), now: clock.now)
        try await planner.markDone(plantId: fern.id, task: .water)
        clock.advance(days: 7)
        #expect(try await planner.due(withinDays: 0).tasks.map(\.task) == [.water])
        let (check, next) = try await planner.checkSoil(plantId: fern.id, reading: .wet)
        #expect(check.soil == .wet && check.day == planner.today)
        let due = try #require(next.dueOn)
        #expect(due > planner.today)
        #expect(try await planner.due(withinDays: 0).tasks.isEmpty)
        // The interval grew, and the plant says why.
        #expect((next.intervalDays ?? 0) > 7)
        let water = try #require(try await planner.explain(plantId: fern.id).first { $0.task == .water })
        #expect(water.source == .learned && water.guide == 7 && water.interval == next.intervalDays)
        #expect(water.because.count == 1 && water.because[0].contains("still wet when due once in June 2026 (+"))
        #expect(water.text.hasPrefix("every \(next.intervalDays ?? 0) days: the guide for test says 7 in the growing season;"))
        // A check is not a watering: the last day done stays.
        #expect(next.lastDone == CalendarDay("2026-06-01"))
        // Undo forgets the check: the guide's interval and due day come back.
        let undone = try #require(try await planner.undoLastEntry(plantId: fern.id))
        #expect(undone.removed.id == check.id)
        let back = try #require(undone.schedule.first { $0.task == .water })
        #expect(back.intervalDays == 7 && back.dueOn == CalendarDay("2026-06-08"))
    }

    @Test func drySoilMakesTheWateringDueTodayAndBackToTheGuideForgets() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let fern = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(water: 10), now: clock.now)
        try await planner.markDone(plantId: fern.id, task: .water)
        for _ in 0..<3 {
            clock.advance(days: 5)
            let (_, next) = try await planner.checkSoil(plantId: fern.id, reading: .dry)
            #expect(next.dueOn == planner.today)
            try await planner.markDone(plantId: fern.id, task: .water)
        }
        let learned = try #require(try await planner.schedule(forPlant: fern.id).first { $0.task == .water })
        #expect((learned.intervalDays ?? 10) < 10)
        let explained = try #require(try await planner.explain(plantId: fern.id).first { $0.task == .water })
        #expect(explained.because.first?.contains("already dry when checked") == true)
        let reset = try await planner.backToGuide(plantId: fern.id, task: .water)
        #expect(reset.intervalDays == 10)
        #expect(try await planner.explain(plantId: fern.id).first { $0.task == .water }?.source == .guide)
        // A check in the future is refused; nothing is logged.
        let count = try database.events(plantId: fern.id).count
        await #expect(throws: StoreError.self) {
            try await planner.checkSoil(plantId: fern.id, reading: .wet, on: planner.today.adding(days: 1))
        }
        #expect(try database.events(plantId: fern.id).count == count)
        await #expect(throws: StoreError.self) { try await planner.checkSoil(plantId: 404, reading: .wet) }
    }

    @Test func careBeforeThePlantWasAcquiredOrAYearBeforeItWasAddedIsRefused() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let fern = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(), now: clock.now)
        let bought = try database.addPlant(NewPlant(name: "Ivy", acquiredOn: CalendarDay("2026-05-20")), profile: .fixture(), now: clock.now)
        // Care given before the plant came into the collection is welcome, within a year.
        try await planner.markDone(plantId: fern.id, task: .water, on: CalendarDay("2026-04-01"))
        try await planner.markDone(plantId: bought.id, task: .water, on: CalendarDay("2026-05-20"))
        for (plant, day) in [(fern.id, "2025-05-31"), (bought.id, "2026-05-19")] {
            await #expect(throws: StoreError.self) { try await planner.markDone(plantId: plant, task: .water, on: CalendarDay(day)) }
            await #expect(throws: StoreError.self) {
                try await planner.checkSoil(plantId: plant, reading: .wet, on: CalendarDay(day))
            }
        }
        #expect(try database.events(plantId: nil).count == 2)
    }

    @Test func anIntervalSetByHandIsNotMovedByTheLog() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let fern = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(water: 7), now: clock.now)
        try database.updateScheduleSettings(plantId: fern.id, task: .water) { $0.growingDays = 4 }
        try await planner.markDone(plantId: fern.id, task: .water)
        clock.advance(days: 4)
        let (_, next) = try await planner.checkSoil(plantId: fern.id, reading: .wet)
        #expect(next.intervalDays == 4)
        let water = try #require(try await planner.explain(plantId: fern.id).first { $0.task == .water })
        #expect(water.source == .set && water.text.hasPrefix("every 4 days: set by hand"))
    }

    @Test func whereAPlantLivesScalesItsWateringAndSaysSo() async throws {
        let (home, database, clock, planner) = try setUp()
        defer { home.cleanUp() }
        let fern = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(water: 10, winterWater: 20), now: clock.now)
        // June: the growing season. A 30 cm terracotta pot in direct sun, outdoors for the summer.
        let conditions = PlantConditions(potCentimetres: 30, potMaterial: .terracotta, light: .directSun, outdoorsInSummer: true)
        let expected = 1.4 * 0.85 * 0.8 * 0.6  // the pot's √2 is capped at 1.4
        let water = try await planner.setConditions(plantId: fern.id, conditions)
        #expect(water.intervalDays == Int((10 * max(expected, 0.5)).rounded()))
        #expect(try await planner.conditions(ofPlant: fern.id) == conditions)
        let explained = try #require(try await planner.explain(plantId: fern.id).first { $0.task == .water })
        #expect(explained.conditions.map(\.condition) == ["pot 30 cm", "terracotta pot", "direct sun light", "outdoors for the summer"])
        #expect(explained.text.contains("the guide for test says 10 in the growing season; pot 30 cm ×1.40, terracotta pot ×0.85"))
        // A heater matters in winter only: not now.
        #expect(conditions.factors(season: .rest).map(\.condition) == ["pot 30 cm", "terracotta pot", "direct sun light"])
        // Refused, nothing changed: a pot of 0 cm or 10 m.
        for pot in [0, 1000] {
            await #expect(throws: StoreError.self) {
                try await planner.setConditions(plantId: fern.id, PlantConditions(potCentimetres: pot))
            }
        }
        #expect(try await planner.conditions(ofPlant: fern.id) == conditions)
        // Learning is relative to the guide as the conditions scale it: wet on the due day lengthens it from there.
        let before = try #require(water.intervalDays)
        try await planner.markDone(plantId: fern.id, task: .water)
        clock.advance(days: before)
        let (_, next) = try await planner.checkSoil(plantId: fern.id, reading: .wet)
        #expect((next.intervalDays ?? 0) > before && (next.intervalDays ?? 0) <= 2 * before)
        // Saying nothing goes back to the guide's 10 days: soil still wet after 6 days says nothing against 10.
        let cleared = try await planner.setConditions(plantId: fern.id, PlantConditions())
        #expect(cleared.intervalDays == 10)
        #expect(try await planner.conditions(ofPlant: fern.id).isEmpty)
    }
}
