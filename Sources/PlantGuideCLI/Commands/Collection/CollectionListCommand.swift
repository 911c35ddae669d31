import ArgumentParser
import PlantStore

struct CollectionListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your plants, by room.",
        discussion: """
            Examples:
              plantguide collection list
              plantguide collection list --room Kitchen --json
            """
    )

    @Option(help: "Only plants in this room (case-insensitive).")
    var room: String?

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let plants = try await CollectionEnvironment.load(context).store.plants(room: room)
        if output.json {
            try console.printJSON(plants.map(PlantJSON.init))
            return
        }
        guard !plants.isEmpty else {
            console.print(room.map { "No plants in \($0)." } ?? "No plants yet. Add one with `plantguide collection add NAME`.")
            return
        }
        var currentRoom: String?? = .none
        for plant in plants {
            if currentRoom != .some(plant.room) {
                console.print(console.style(plant.room ?? "No room", .cyan))
                currentRoom = .some(plant.room)
            }
            console.print(console.plantLine(plant))
        }
        console.print("\(plants.count) plant\(plants.count == 1 ? "" : "s")")
    }
}
