import ArgumentParser
import PlantStore

struct CollectionRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a plant with its schedule and care log (its identifications stay in the history).",
        discussion: """
            Example:
              plantguide collection remove 3
            """
    )

    @Argument(help: "The plant's id (see `collection list`).", transform: PlantID.init(parsing:))
    var id: PlantID

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let plantId = id.value
        guard let plant = try await environment.store.plant(id: plantId) else { throw StoreError.plantNotFound(plantId) }
        try await environment.collection.removePlant(id: plantId)
        if output.json {
            try console.printJSON(["removed": PlantJSON(plant: plant)])
        } else {
            console.print("Removed" + console.plantLine(plant))
        }
    }
}
