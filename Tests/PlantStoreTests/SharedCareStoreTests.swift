import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres
import Testing

extension TestStore {
    /// Care: the log, schedules, profiles and care states.
    var care: any CareStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// Care through ``CareStore``, on every backend: the same log, schedule settings and care states.
@Suite struct SharedCareStoreTests {
    /// 2026-11-24 00:00:00.123 UTC, with a fraction below the millisecond the stores round away.
    private let now = Date(timeIntervalSince1970: 1_795_478_400.123_4)

    @Test(arguments: StateBackend.allCases)
    func careIsLoggedNewestFirstAndClearsTheSnooze(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let care = stores[0].care, other = stores[1].care
            let fern = try await stores[0].plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            let ivy = try await stores[0].plants.addPlant(NewPlant(name: "Ivy"), profile: .fixture(), photo: nil, now: now)
            let snoozed = try await other.updateScheduleSettings(plantId: fern.id, task: .water) { $0.snoozedUntil = day("2026-12-01") }
            #expect(snoozed == CareScheduleSettings(plantId: fern.id, task: .water, snoozedUntil: day("2026-12-01")))
            let later = now.addingTimeInterval(3600)
            let watered = try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-23"), note: " rain water ", now: later)
            #expect(watered.note == "rain water" && watered.createdAt == later.roundedToMilliseconds && watered.plantId == fern.id)
            let blank = try await care.logCare(plantId: ivy.id, task: .water, day: day("2026-11-23"), note: "  ", now: now)
            #expect(blank.note == nil)
            let older = try await other.logCare(plantId: fern.id, task: .mist, day: day("2026-11-01"), note: nil, now: now)
            // Newest day first, then the later entry.
            #expect(try await other.events(plantId: nil) == [blank, watered, older])
            #expect(try await care.events(plantId: fern.id) == [watered, older])
            #expect(try await care.events(plantId: 404).isEmpty)
            // Doing the task clears its snooze, and the plant counts as changed.
            let details = try await stores[1].plants.details(ofPlant: fern.id)
            #expect(details.scheduleSettings == [CareScheduleSettings(plantId: fern.id, task: .water)])
            #expect(details.plant.updatedAt == later.roundedToMilliseconds)
            // Refused: an unknown plant, a note over the limit.
            await expectPlantNotFound(404) { try await care.logCare(plantId: 404, task: .water, day: day("2026-11-23"), note: nil, now: now) }
            await #expect(throws: StoreError.self) {
                try await care.logCare(
                    plantId: fern.id, task: .water, day: day("2026-11-23"),
                    note: String(repeating: "n", count: InputLimits.noteCharacters + 1), now: now
                )
            }
            await expectPlantNotFound(404) { try await care.updateScheduleSettings(plantId: 404, task: .water) { $0.paused = true } }
            await expectPlantNotFound(404) { try await care.setProfile(.fixture(), forPlant: 404) }
            #expect(try await care.events(plantId: nil).count == 3)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func soilChecksAreLoggedButAreNotTheTaskDoneAndTheLastEntryCanBeUndone(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let care = stores[0].care, other = stores[1].care
            let fern = try await stores[0].plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-10"), note: nil, now: now)
            try await care.updateScheduleSettings(plantId: fern.id, task: .water) { $0.snoozedUntil = day("2026-11-26") }
            let check = try await other.logCare(
                plantId: fern.id, task: .water, day: day("2026-11-17"), note: nil, soil: .wet, now: now.addingTimeInterval(60)
            )
            #expect(check.soil == .wet && check.summary == "checked the soil: still wet")
            // A check leaves the last day done and the snooze as they were.
            let state = try #require(try await care.careStates(plantId: fern.id, room: nil).first)
            #expect(state.lastDone[CareTask.water] == day("2026-11-10"))
            #expect(state.settings[CareTask.water]?.snoozedUntil == day("2026-11-26"))
            #expect(try await care.events(plantId: fern.id).first == check)
            // Learned intervals are stored and read back as they were written.
            let learned = try await other.updateScheduleSettings(plantId: fern.id, task: .water) { settings in
                settings.learnedGrowing = 1.25
                settings.learnedRest = 0.75
                settings.learnedSince = day("2026-11-01")
            }
            #expect(try await care.careStates(plantId: fern.id, room: nil).first?.settings[CareTask.water] == learned)
            // A check is of watering only; out of bounds factors are refused by the database.
            await #expect(throws: StoreError.self) {
                try await care.logCare(plantId: fern.id, task: .mist, day: day("2026-11-17"), note: nil, soil: .dry, now: now)
            }
            await #expect(throws: StoreError.self) {
                try await care.updateScheduleSettings(plantId: fern.id, task: .water) { $0.learnedGrowing = 3 }
            }
            // Undo takes the newest entry by when it was logged, whatever its day.
            #expect(try await other.removeLastCareEntry(plantId: fern.id) == check)
            let watering = try #require(try await care.events(plantId: fern.id).first)
            #expect(try await care.removeLastCareEntry(plantId: fern.id) == watering)
            #expect(try await care.careStates(plantId: fern.id, room: nil).first?.lastDone[CareTask.water] == nil)
            #expect(try await care.removeLastCareEntry(plantId: fern.id) == nil)
            await expectPlantNotFound(404) { try await care.removeLastCareEntry(plantId: 404) }
            // A day takes 50 entries of one plant; the 51st is refused, and nothing of it is kept. Another day is fine.
            for index in 0..<50 {
                try await (index.isMultiple(of: 2) ? care : other).logCare(
                    plantId: fern.id, task: .mist, day: day("2026-11-20"), note: nil, now: now
                )
            }
            await #expect(throws: StoreError.self) {
                try await other.logCare(plantId: fern.id, task: .water, day: day("2026-11-20"), note: nil, now: now)
            }
            #expect(try await care.events(plantId: fern.id).count == 50)
            try await care.logCare(plantId: fern.id, task: .water, day: day("2026-11-21"), note: nil, now: now)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func settingsAndProfilesChangeWhatTheSchedulerReads(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let care = stores[0].care, other = stores[1].care
            let fern = try await stores[0].plants.addPlant(
                NewPlant(name: "Fern", nickname: "Fred", room: "Hall"), profile: .fixture(), photo: nil, now: now
            )
            let ivy = try await stores[0].plants.addPlant(NewPlant(name: "Ivy", room: "hall"), profile: .fixture(), photo: nil, now: now)
            let palm = try await stores[0].plants.addPlant(NewPlant(name: "Palm"), profile: .fixture(), photo: nil, now: now)
            var settings = try await care.updateScheduleSettings(plantId: fern.id, task: .fertilize) { $0.growingDays = 20 }
            settings = try await other.updateScheduleSettings(plantId: fern.id, task: .fertilize) { $0.paused = true }
            #expect(settings == CareScheduleSettings(plantId: fern.id, task: .fertilize, growingDays: 20, paused: true))
            var profile = CareProfile.fixture(water: 4, winterWater: 9, fertilize: nil)
            profile.mistDays = 3
            try await other.setProfile(profile, forPlant: ivy.id)
            #expect(try await stores[0].plants.details(ofPlant: ivy.id).profile == profile)
            try await care.logCare(plantId: ivy.id, task: .water, day: day("2026-11-20"), note: nil, now: now)
            try await care.logCare(plantId: ivy.id, task: .water, day: day("2026-11-10"), note: nil, now: now)  // older: last stays
            let all = try await other.careStates(plantId: nil, room: nil)
            #expect(all.map(\.plantId) == [fern.id, ivy.id, palm.id])
            #expect(all.map(\.displayName) == ["Fred", "Ivy", "Palm"])
            #expect(all[0].settings[.fertilize] == settings)
            #expect(all[0].settings[.water] == nil)
            #expect(all[1].intervals[.water] == TaskIntervals(growing: 4, rest: 9))
            #expect(all[1].intervals[.mist] == TaskIntervals(growing: 3, rest: 6))
            #expect(all[1].intervals[.repot] == TaskIntervals(growing: 730, rest: 730))
            #expect(all[1].intervals[.fertilize] == TaskIntervals(growing: nil, rest: nil))
            #expect(all[1].lastDone[.water] == day("2026-11-20"))
            #expect(all[1].lastDone[.mist] == nil)
            #expect(all.allSatisfy { $0.createdAt == now.roundedToMilliseconds })
            #expect(try await care.careStates(plantId: nil, room: "HALL").map(\.plantId) == [fern.id, ivy.id])
            #expect(try await care.careStates(plantId: ivy.id, room: "Attic") == [all[1]])
            #expect(try await care.careStates(plantId: 404, room: nil).isEmpty)
        }
    }

    /// A household's plant list and care states are kept in memory between reads (`HouseholdCache`): every change that
    /// alters them, made by the other replica (another process or server on the same database), shows in the next read.
    @Test(arguments: StateBackend.allCases)
    func listsKeptInMemoryFollowEveryChangeOfTheOtherReplica(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let reader = stores[0].care, readerPlants = stores[0].plants, writer = stores[1]
            // What the tables hold: each plant (and its state) read alone, which never comes from memory; the plants in
            // list order (no room last, rooms and names ignoring case, then id).
            let stored: @Sendable () async throws -> (states: [PlantCareState], plants: [Plant]) = {
                var states: [PlantCareState] = [], plants: [Plant] = []
                for id in Int64(1)...8 {
                    states += try await writer.care.careStates(plantId: id, room: nil)
                    if let plant = try await writer.plants.plant(id: id) { plants.append(plant) }
                }
                plants.sort { a, b in
                    let first = (a.room == nil ? 1 : 0, a.room?.lowercased() ?? "", a.name.lowercased(), a.id)
                    let second = (b.room == nil ? 1 : 0, b.room?.lowercased() ?? "", b.name.lowercased(), b.id)
                    return first < second
                }
                return (states, plants)
            }
            var last = try await reader.careStates(plantId: nil, room: nil)
            #expect(last.isEmpty)
            #expect(try await readerPlants.plants(room: nil).isEmpty)
            // After each change: the reader sees exactly the stored states, and they did change.
            let steps: [(String, @Sendable () async throws -> Void)] = [
                ("add plants", {
                    _ = try await writer.plants.addPlant(NewPlant(name: "Fern", room: "Hall"), profile: .fixture(), photo: nil, now: now)
                    _ = try await writer.plants.addPlant(NewPlant(name: "Ivy"), profile: .fixture(), photo: nil, now: now)
                }),
                ("log care", { try await writer.care.logCare(plantId: 1, task: .water, day: day("2026-11-20"), note: nil, now: now) }),
                ("log care of another task", {
                    try await writer.care.logCare(plantId: 2, task: .mist, day: day("2026-11-21"), note: nil, now: now)
                }),
                ("snooze", { try await writer.care.updateScheduleSettings(plantId: 2, task: .water) { $0.snoozedUntil = day("2026-12-01") } }),
                ("pause", { try await writer.care.updateScheduleSettings(plantId: 1, task: .fertilize) { $0.paused = true } }),
                ("change the profile", { try await writer.care.setProfile(.fixture(water: 30, winterWater: 45, fertilize: nil), forPlant: 1) }),
                ("rename, nickname and move", {
                    var ivy = try #require(try await writer.plants.plant(id: 2))
                    ivy.name = "English ivy"
                    ivy.nickname = "Ivan"
                    ivy.room = "kitchen"
                    _ = try await writer.plants.updatePlant(ivy, now: now)
                }),
                ("add plants with their care", {
                    _ = try await writer.plants.addPlants([
                        PlantSeed(plant: NewPlant(name: "Palm", room: "Kitchen"), profile: .fixture(), events: [(.water, day("2026-11-01"), nil)]),
                        PlantSeed(plant: NewPlant(name: "Fig"), profile: .fixture(water: 9), events: [(.repot, day("2025-03-01"), nil)]),
                    ], now: now)
                }),
                // Made through the reader itself, which brings the lists it keeps along instead of reading them again.
                ("log care here", {
                    try await reader.logCare(plantId: 3, task: .water, day: day("2026-11-23"), note: nil, now: now.addingTimeInterval(60))
                }),
                ("snooze here", { try await reader.updateScheduleSettings(plantId: 4, task: .water) { $0.snoozedUntil = day("2026-12-05") } }),
                ("pause here, with a closure that tries to change another plant", {
                    let settings = try await reader.updateScheduleSettings(plantId: 4, task: .mist) { settings in
                        settings.plantId = 3
                        settings.task = .water
                        settings.paused = true
                    }
                    #expect(settings == CareScheduleSettings(plantId: 4, task: .mist, paused: true))
                }),
                ("change the profile here", { try await reader.setProfile(.fixture(water: 12, winterWater: 20, fertilize: 40), forPlant: 3) }),
                ("log care here, then there", {
                    try await reader.logCare(plantId: 4, task: .repot, day: day("2026-11-23"), note: nil, now: now.addingTimeInterval(120))
                    try await writer.care.logCare(plantId: 2, task: .repot, day: day("2026-11-23"), note: nil, now: now.addingTimeInterval(180))
                }),
                ("remove a plant", { _ = try await writer.plants.removePlant(id: 1) }),
            ]
            for (change, step) in steps {
                try await step()
                let read = try await reader.careStates(plantId: nil, room: nil), plants = try await readerPlants.plants(room: nil)
                let (storedStates, storedPlants) = try await stored()
                #expect(read == storedStates, "after \(change)")
                #expect(plants == storedPlants, "after \(change)")
                #expect(read != last, "\(change) changed no care state")
                // Read again (from memory): the same, and a room's from the same lists.
                #expect(try await reader.careStates(plantId: nil, room: nil) == read, "after \(change), read again")
                #expect(try await readerPlants.plants(room: nil) == plants, "after \(change), read again")
                #expect(try await reader.careStates(plantId: nil, room: "KITCHEN") == read.filter { $0.room?.lowercased() == "kitchen" })
                #expect(try await readerPlants.plants(room: "KITCHEN") == plants.filter { $0.room?.lowercased() == "kitchen" })
                last = read
            }
            #expect(last.map(\.displayName) == ["Ivan", "Palm", "Fig"])
            // Only the first reads read every plant: after each change elsewhere, only the plants it touched were read.
            let keeps = stores[0].keeps
            #expect(keeps.care.whole == 1 && keeps.plants.whole == 1)
            #expect(keeps.care.patched >= steps.count && keeps.plants.patched >= steps.count)
            // A change of what only the plant list shows (notes) shows there, and leaves the care states as they are.
            var palm = try #require(try await writer.plants.plant(id: 3))
            palm.notes = "by the window"
            _ = try await writer.plants.updatePlant(palm, now: now)
            #expect(try await reader.careStates(plantId: nil, room: nil) == last)
            #expect(try await readerPlants.plants(room: "kitchen").map(\.notes) == [nil, "by the window"])
            // Another household's plants and care are its own, on either side.
            let other = try await writer.shared.createHousehold(named: "Neighbours", now: now)
            let neighbours = HouseholdScope(household: other.id)
            try await HouseholdScope.$current.withValue(neighbours) {
                #expect(try await reader.careStates(plantId: nil, room: nil).isEmpty)
                #expect(try await readerPlants.plants(room: nil).isEmpty)
                let rose = try await writer.plants.addPlant(NewPlant(name: "Rose"), profile: .fixture(), photo: nil, now: now)
                try await writer.care.logCare(plantId: rose.id, task: .water, day: day("2026-11-22"), note: nil, now: now)
                let theirs = try await reader.careStates(plantId: nil, room: nil)
                #expect(theirs.map(\.displayName) == ["Rose"])
                #expect(theirs.first?.lastDone[.water] == day("2026-11-22"))
                #expect(try await readerPlants.plants(room: nil).map(\.name) == ["Rose"])
            }
            #expect(try await reader.careStates(plantId: nil, room: nil) == last)
            #expect(try await readerPlants.plants(room: nil).map(\.displayName) == ["Ivan", "Palm", "Fig"])
        }
    }

    @Test func careStatesAreTheSameOnBothBackends() async throws {
        let now = now
        // The same calls on each backend; what differs is only the UUIDs each store makes.
        let scenario: @Sendable (TestStore) async throws -> (states: [PlantCareState], uuids: [Int64: String], hall: [PlantCareState]) = { store in
            var uuids: [Int64: String] = [:]
            for index in 0..<12 {
                var profile = CareProfile.fixture(water: 3 + index, winterWater: 10 + index, fertilize: index % 3 == 0 ? nil : 20 + index)
                profile.mistDays = index % 2 == 0 ? 2 + index : nil
                profile.pruneDays = index % 4 == 0 ? 90 : nil
                let plant = try await store.plants.addPlant(
                    NewPlant(name: "Plant \(index)", nickname: index % 5 == 0 ? "Nick \(index)" : nil,
                             room: ["Hall", "hall", nil, "Kitchen"][index % 4]),
                    profile: profile, photo: nil, now: now.addingTimeInterval(Double(index) * 61.001)
                )
                uuids[plant.id] = plant.uuid
                for (step, task) in CareTask.allCases.enumerated() where (index + step) % 3 != 0 {
                    try await store.care.logCare(
                        plantId: plant.id, task: task, day: CalendarDay(dayNumber: 20_400 + index * 3 + step), note: nil, now: now
                    )
                    try await store.care.logCare(
                        plantId: plant.id, task: task, day: CalendarDay(dayNumber: 20_390 + index), note: "earlier", now: now
                    )
                }
                if index % 3 == 1 {
                    try await store.care.updateScheduleSettings(plantId: plant.id, task: .water) { settings in
                        settings.growingDays = 5
                        settings.restDays = 12
                    }
                    try await store.care.updateScheduleSettings(plantId: plant.id, task: .prune) { $0.paused = true }
                    try await store.care.updateScheduleSettings(plantId: plant.id, task: .mist) { $0.snoozedUntil = CalendarDay(dayNumber: 20_500) }
                }
            }
            // A later log clears one snooze; a profile changes.
            try await store.care.logCare(plantId: 2, task: .mist, day: CalendarDay(dayNumber: 20_450), note: nil, now: now)
            try await store.care.setProfile(.fixture(water: 30, winterWater: 60, fertilize: 90), forPlant: 3)
            return (try await store.care.careStates(plantId: nil, room: nil), uuids, try await store.care.careStates(plantId: nil, room: "HALL"))
        }
        let sqlite = try await StateBackend.sqlite.withTestStores(1) { try await scenario($0[0]) }
        let postgres = try await StateBackend.postgres.withTestStores(1) { try await scenario($0[0]) }
        #expect(sqlite.states.count == 12)
        #expect(postgres.states.count == sqlite.states.count)
        for (mine, theirs) in zip(postgres.states, sqlite.states) {
            #expect(mine.plantId == theirs.plantId)
            #expect(mine.plantUUID == postgres.uuids[mine.plantId])
            #expect(theirs.plantUUID == sqlite.uuids[theirs.plantId])
            #expect(mine.displayName == theirs.displayName)
            #expect(mine.room == theirs.room)
            #expect(mine.createdAt == theirs.createdAt)
            for task in CareTask.allCases {
                #expect(mine.intervals[task] == theirs.intervals[task], "plant \(mine.plantId) \(task) intervals")
                #expect(mine.settings[task] == theirs.settings[task], "plant \(mine.plantId) \(task) settings")
                #expect(mine.lastDone[task] == theirs.lastDone[task], "plant \(mine.plantId) \(task) last done")
            }
        }
        #expect(postgres.hall.map(\.plantId) == sqlite.hall.map(\.plantId))
        #expect(sqlite.hall.map(\.plantId) == [1, 2, 5, 6, 9, 10])
        // The scenario exercised what it means to: settings, a cleared snooze, missing last days, the changed profile.
        #expect(sqlite.states[1].settings[.water]?.growingDays == 5)
        #expect(sqlite.states[1].settings[.mist]?.snoozedUntil == nil)
        #expect(sqlite.states[4].settings[.mist]?.snoozedUntil == CalendarDay(dayNumber: 20_500))
        #expect(sqlite.states.contains { $0.lastDone[.water] == nil })
        #expect(sqlite.states[2].intervals[.water] == TaskIntervals(growing: 30, rest: 60))
    }

    @Test(arguments: StateBackend.allCases)
    func twoReplicasChangingOnePlantsCareAtOnceLoseNothing(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let fern = try await stores[0].plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            let rounds = 15
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        for round in 0..<rounds {
                            // Read-modify-write of the same settings row: a lost update would lose a count.
                            try await store.care.updateScheduleSettings(plantId: fern.id, task: .water) { settings in
                                settings.growingDays = (settings.growingDays ?? 0) + 1
                            }
                            try await store.care.logCare(
                                plantId: fern.id, task: .water, day: CalendarDay(dayNumber: 20_000 + round * 2 + index), note: nil, now: now
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
            let state = try #require(try await stores[1].care.careStates(plantId: fern.id, room: nil).first)
            #expect(state.settings[.water]?.growingDays == 2 * rounds)
            #expect(state.lastDone[.water] == CalendarDay(dayNumber: 20_000 + (rounds - 1) * 2 + 1))
            #expect(try await stores[0].care.events(plantId: fern.id).count == 2 * rounds)
        }
    }

    /// Two replicas write to one household at once while a third keeps its lists up to date from the plants changed
    /// since (the log of changed plants): it must end with exactly what is stored. On PostgreSQL this holds only if a
    /// household's stamps grow in the order its changes commit.
    @Test(arguments: StateBackend.allCases)
    func listsKeptWhileTwoReplicasWriteAtOnceEndAsStored(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(3) { stores in
            let reader = stores[0]
            let seeds = (0..<6).map { index in
                PlantSeed(plant: NewPlant(name: "Plant \(index)", room: index % 2 == 0 ? "Hall" : nil), profile: .fixture())
            }
            let ids = try await stores[1].plants.addPlants(seeds, now: now).map(\.id)
            _ = try await reader.care.careStates(plantId: nil, room: nil)
            _ = try await reader.plants.plants(room: nil)
            let rounds = 12
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in stores.dropFirst().enumerated() {
                    // Each writer its own three plants, so no update waits on another's plant, only on the household.
                    let mine = Array(ids[(index * 3)..<(index * 3 + 3)])
                    group.addTask {
                        for round in 0..<rounds {
                            let id = mine[round % mine.count]
                            try await writer.care.logCare(
                                plantId: id, task: .water, day: CalendarDay(dayNumber: 20_400 + round), note: nil, now: now
                            )
                            var plant = try #require(try await writer.plants.plant(id: id))
                            plant.name = "\(["Aloe", "fern", "Zebra"][round % 3]) \(round) of \(index)"
                            _ = try await writer.plants.updatePlant(plant, now: now)
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<(rounds * 3) {
                        _ = try await reader.care.careStates(plantId: nil, room: nil)
                        _ = try await reader.plants.plants(room: nil)
                    }
                }
                try await group.waitForAll()
            }
            var storedStates: [PlantCareState] = [], storedPlants: [Plant] = []
            for id in ids {
                storedStates += try await stores[1].care.careStates(plantId: id, room: nil)
                storedPlants.append(try #require(try await stores[1].plants.plant(id: id)))
            }
            #expect(try await reader.care.careStates(plantId: nil, room: nil) == storedStates)
            #expect(try await reader.plants.plants(room: nil) == storedPlants.sorted(by: KeptLists.listOrder))
            #expect(reader.keeps.care.patched > 0 && reader.keeps.plants.patched > 0)
        }
    }

    /// The order a kept plant list is patched in is the one the tables give: rooms and names compared with ASCII letters
    /// folded (an underscore between upper and lower case, other letters as they are), no room last, then ids.
    @Test(arguments: StateBackend.allCases)
    func theListOrderKeptInMemoryIsTheTablesOrder(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let names = ["fern", "Fern", "FERN 2", "Fern_", "FernA", "ferns", "Éfeu", "efeu", "Zebra", "_under", "aloe", "fern"]
            let rooms: [String?] = ["Hall", "hall", nil, "Kitchen", "kitchen_", "KitchenA", "Äsche", "bath", "HALL"]
            var seeds: [PlantSeed] = []
            for (index, name) in names.enumerated() {
                for offset in 0..<3 {
                    seeds.append(PlantSeed(plant: NewPlant(name: name, room: rooms[(index + offset * 4) % rooms.count]), profile: .fixture()))
                }
            }
            _ = try await stores[0].plants.addPlants(seeds.shuffled(), now: now)
            let plants = try await stores[0].plants.plants(room: nil)
            #expect(plants.count == seeds.count)
            #expect(plants.shuffled().sorted(by: KeptLists.listOrder) == plants)
        }
    }

    /// Not a timed assertion: prints how long reading the care states of 1,000 plants takes on each backend.
    @Test(arguments: StateBackend.allCases)
    func careStatesOfAThousandPlants(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let seeds = (0..<1000).map { index in
                PlantSeed(
                    plant: NewPlant(name: "Plant \(index)", room: "Room \(index % 7)"), profile: .fixture(water: 3 + index % 9),
                    events: [(.water, CalendarDay(dayNumber: 20_400 + index % 30), nil), (.mist, CalendarDay(dayNumber: 20_300), nil)]
                )
            }
            try await stores[0].plants.addPlants(seeds, now: now)
            for index in stride(from: 1, through: 1000, by: 10) {
                try await stores[0].care.updateScheduleSettings(plantId: Int64(index), task: .water) { $0.growingDays = 4 }
            }
            var timings: [Duration] = []
            var states: [PlantCareState] = []
            let clock = ContinuousClock()
            for _ in 0..<5 {
                let start = clock.now
                states = try await stores[0].care.careStates(plantId: nil, room: nil)
                timings.append(clock.now - start)
            }
            #expect(states.count == 1000)
            #expect(states.filter { $0.settings[.water] != nil }.count == 100)
            #expect(states.allSatisfy { $0.lastDone[.mist] == CalendarDay(dayNumber: 20_300) })
            let sorted = timings.sorted()
            print("careStates(plantId: nil, room: nil) of 1,000 plants on \(backend): median \(sorted[2]), best \(sorted[0])")
        }
    }
}
