import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore

/// Every way a plant or a care note is written refuses text over ``InputLimits`` and stores nothing.
@Suite struct InputLimitTests {
    @Test(arguments: [
        (NewPlant(name: String(repeating: "n", count: 201)), "The name is longer than 200 characters."),
        (NewPlant(name: "Fern", nickname: String(repeating: "n", count: 101)), "The nickname is longer than 100 characters."),
        (NewPlant(name: "Fern", room: String(repeating: "r", count: 101)), "The room is longer than 100 characters."),
        (NewPlant(name: "Fern", notes: String(repeating: "x", count: 2_001)), "The note is longer than 2000 characters."),
    ])
    func plantsOverTheLimitsAreRefused(plant: NewPlant, message: String) throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        #expect { try database.addPlant(plant, profile: .fixture(), now: Date()) } throws: { refused($0, message) }
        #expect { try database.addPlants([PlantSeed(plant: plant, profile: .fixture())], now: Date()) } throws: { refused($0, message) }
        #expect(try database.plants().isEmpty)
    }

    @Test func textAtTheLimitsIsKeptAndUpdatesAreChecked() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        // Characters, not bytes: 100 two-byte letters are within the limit.
        let nickname = String(repeating: "é", count: InputLimits.nicknameCharacters)
        var plant = try database.addPlant(NewPlant(name: "Fern", nickname: nickname), profile: .fixture(), now: Date())
        #expect(try database.plant(id: plant.id)?.nickname == nickname)
        plant.room = String(repeating: "r", count: InputLimits.roomCharacters + 1)
        #expect { try database.updatePlant(plant, now: Date()) } throws: { refused($0, "The room is longer than 100 characters.") }
        #expect(try database.plant(id: plant.id)?.room == nil)
    }

    @Test func careNotesOverTheLimitAreRefused() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let plant = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(), now: Date())
        let day = CalendarDay(Date(), in: .current)
        #expect {
            try database.logCare(plantId: plant.id, task: .water, day: day, note: String(repeating: "x", count: 2_001), now: Date())
        } throws: { refused($0, "The note is longer than 2000 characters.") }
        let event = try database.logCare(plantId: plant.id, task: .water, day: day, note: String(repeating: "x", count: 2_000), now: Date())
        #expect(event.note?.count == 2_000)
    }

    private func refused(_ error: any Error, _ message: String) -> Bool {
        guard case .invalid(let text)? = error as? StoreError else { return false }
        return text == message
    }
}
