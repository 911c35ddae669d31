import ArgumentParser
import PlantStore

struct CollectionPhotoRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Take a photo off a plant (its file is deleted when nothing else uses it).",
        discussion: """
            Example:
              plantguide collection photo remove 3 9f2c1a
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The photo: its SHA-256 or a unique start of it (6 characters or more).")
    var photo: String

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let plantId = id.value
        let entry = try await resolvePlantPhoto(photo, plantId: plantId, store: environment.store)
        try await environment.collection.removePhoto(entry.photo.sha256, fromPlant: plantId)
        if output.json {
            try console.printJSON(["removed": entry.photo.sha256])
        } else {
            console.print("Removed photo \(entry.photo.sha256.prefix(12))… from plant #\(plantId)")
        }
    }
}
