import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

struct CareConditionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conditions",
        abstract: "Say where a plant lives (pot, light, heater, outdoors); its watering interval follows at once.",
        discussion: """
            Each condition is a factor on the care guide's watering interval, PlantGuide's own rule of thumb: a \
            pot of D cm ×√(D/15) (0.7–1.4), terracotta ×0.85, self-watering ×1.5, low light ×1.25, bright \
            indirect ×0.9, direct sun ×0.8, near a heater ×0.75 in winter, outdoors for the summer ×0.6 in the \
            growing season; together within ½–2×. Soil checks then correct it (`care check`). Options not given \
            keep their value; --clear forgets them all. Name one plant, or every plant of a room with --room.

            Examples:
              plantguide care conditions 3 --pot 25 --material terracotta --light bright-indirect
              plantguide care conditions --room Living --heater
              plantguide care conditions 3 --no-outdoors
              plantguide care conditions 3                 Show them.
            """
    )

    @Argument(help: "The plant's id (or use --room).", transform: PlantID.init(parsing:))
    var id: PlantID?

    @Option(help: "Every plant in this room.")
    var room: String?

    @Option(help: "The pot's diameter at the top, in cm (\(PlantConditions.potRange.lowerBound)–\(PlantConditions.potRange.upperBound)).")
    var pot: Int?

    @Option(help: "What the pot is made of: \(PotMaterial.allCases.map(\.rawValue).joined(separator: ", ")).")
    var material: PotMaterial?

    @Option(help: "The light of the spot: low, medium, bright-indirect or direct-sun.")
    var light: String?

    @Flag(inversion: .prefixedNo, help: "A heater or radiator is near (dries the soil in winter).")
    var heater: Bool?

    @Flag(inversion: .prefixedNo, help: "The plant spends the growing season outdoors.")
    var outdoors: Bool?

    @Flag(help: "Forget every condition said for the plant.")
    var clear = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if (id == nil) == (room == nil) { throw ValidationError("Name the plant by id, or every plant of a room with --room.") }
        if let pot, !PlantConditions.potRange.contains(pot) {
            throw ValidationError("A pot is \(PlantConditions.potRange.lowerBound) to \(PlantConditions.potRange.upperBound) cm across, not \(pot) cm.")
        }
        _ = try parsedLight()
        if clear && (pot != nil || material != nil || light != nil || heater != nil || outdoors != nil) {
            throw ValidationError("--clear forgets every condition; give it alone.")
        }
    }

    private func parsedLight() throws -> LightLevel? {
        guard let light else { return nil }
        let name = light.replacingOccurrences(of: "-", with: " ").lowercased()
        guard let level = LightLevel(rawValue: name) else {
            throw ValidationError("'\(light)' is not a light; say low, medium, bright-indirect or direct-sun.")
        }
        return level
    }

    /// One plant's conditions and watering as printed.
    private struct Shown: Encodable {
        var plantId: Int64
        var conditions: PlantConditions
        var water: ScheduledTask
    }

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        let planner = try await environment.planner
        var plants: [Int64] = []
        if let id {
            guard try await environment.store.plant(id: id.value) != nil else { throw StoreError.plantNotFound(id.value) }
            plants = [id.value]
        } else if let room {
            plants = try await environment.store.plants(room: room).map(\.id)
            guard !plants.isEmpty else { throw ValidationError("No plant is in a room called '\(room)' (see `plantguide collection list`).") }
        }
        let light = try parsedLight()
        let changes = clear || pot != nil || material != nil || light != nil || heater != nil || outdoors != nil
        var shown: [Shown] = []
        for plant in plants {
            var conditions = try await planner.conditions(ofPlant: plant)
            if changes {
                if clear { conditions = PlantConditions() }
                if let pot { conditions.potCentimetres = pot }
                if let material { conditions.potMaterial = material }
                if let light { conditions.light = light }
                if let heater { conditions.nearHeater = heater }
                if let outdoors { conditions.outdoorsInSummer = outdoors }
                try await planner.setConditions(plantId: plant, conditions)
            }
            let water = try await planner.explainedSchedule(forPlant: plant).first { $0.task == .water }
            guard let water else { throw StoreError.plantNotFound(plant) }
            shown.append(Shown(plantId: plant, conditions: conditions, water: water))
        }
        let console = Console()
        if output.json {
            if id != nil, let only = shown.first { try console.printJSON(only) } else { try console.printJSON(shown) }
            return
        }
        for entry in shown {
            console.print(console.style(entry.water.plantName, .bold) + console.style(" (#\(entry.plantId))", .dim)
                + "  " + entry.conditions.summary)
            console.print(console.scheduleLine(entry.water, today: planner.today))
            if let explanation = entry.water.explanation { console.print(console.style("             " + explanation.text, .dim)) }
        }
    }
}

extension PotMaterial: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
