import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

struct CollectionAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a plant by name or catalog species.",
        discussion: """
            A name the catalog knows (scientific or common) links the plant to its species and care \
            profile; any other name is kept as written with general care defaults. --species must be \
            in the catalog.

            Examples:
              plantguide collection add "Snake plant" --room Bedroom
              plantguide collection add --species "Monstera deliciosa" --nickname Monty --photo monty.jpg
              plantguide collection add "Grandma's cutting" --room Kitchen --json
            """
    )

    @Argument(help: "What the plant is called (free text or a catalog name).")
    var name: [String] = []

    @Option(help: "A catalog species, e.g. \"Monstera deliciosa\".")
    var species: String?

    @Option(help: "A photo of the plant (JPEG, PNG, WebP or HEIC).")
    var photo: String?

    @Option(help: "Room or location, e.g. \"Living room\".")
    var room: String?

    @Option(help: "Your name for it.")
    var nickname: String?

    @Option(help: "When you got it (YYYY-MM-DD).")
    var acquired: String?

    @Option(help: "Free notes.")
    var notes: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if name.joined().trimmingCharacters(in: .whitespaces).isEmpty && (species ?? "").isEmpty {
            throw ValidationError("Give a name or --species, e.g. `plantguide collection add \"Snake plant\"`.")
        }
        _ = try parseDay(acquired, option: "--acquired")
    }

    func run() async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load()
        let photoData = try photo.map(readInputFile)
        let plant = try environment.collection.addPlant(
            name: name.isEmpty ? nil : name.joined(separator: " "), species: species, nickname: nickname, room: room,
            acquiredOn: try parseDay(acquired, option: "--acquired"), notes: notes, photo: photoData
        )
        if output.json {
            try console.printJSON(PlantJSON(plant: plant))
            return
        }
        console.print("Added" + console.plantLine(plant))
        if plant.species == nil { console.print(console.style("  Not in the catalog: using general care defaults.", .dim)) }
    }
}
