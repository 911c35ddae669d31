import ArgumentParser
import PlantStore

struct CollectionPhotoSetCoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-cover",
        abstract: "Choose the photo that stands for a plant in lists and on its page.",
        discussion: """
            Without a choice, the photo added last is the cover.

            Example:
              plantguide collection photo set-cover 3 9f2c1a
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
        try await environment.store.setCoverPhoto(entry.photo.sha256, ofPlant: plantId, now: environment.now())
        if output.json {
            try console.printJSON(["cover": entry.photo.sha256])
        } else {
            console.print("Photo \(entry.photo.sha256.prefix(12))… is now the cover of plant #\(plantId)")
        }
    }
}
