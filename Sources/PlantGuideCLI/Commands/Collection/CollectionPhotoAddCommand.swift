import ArgumentParser
import PlantStore

struct CollectionPhotoAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a photo to a plant (stored once, however many plants share it).",
        discussion: """
            Example:
              plantguide collection photo add 3 new-leaf.jpg --json
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The photo file.")
    var photo: String

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context, embedder: CollectionEnvironment.defaultEmbedder())
        let stored = try await environment.collection.addPhoto(try readInputFile(photo), toPlant: id.value)
        if output.json {
            try console.printJSON(PhotoJSON(photo: stored, library: environment.collection.photos))
        } else {
            console.print("Added photo \(stored.sha256.prefix(12))… to plant #\(id)")
        }
    }
}
