import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantStore

struct CollectionAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a plant by name or catalog species.",
        discussion: """
            A name the catalog knows (scientific or common) links the plant to its species and care \
            profile; any other name is kept as written with general care defaults. --species must be \
            in the catalog. With TREFLE_TOKEN set, light, humidity and temperatures are refined from \
            the Trefle API when it answers (PLANTGUIDE_TREFLE_URL overrides its address).

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

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context, embedder: photo == nil ? nil : CollectionEnvironment.defaultEmbedder())
        let photoData = try photo.map(readInputFile)
        let plant = try await environment.collection.addPlant(
            name: name.isEmpty ? nil : name.joined(separator: " "), species: species, nickname: nickname, room: room,
            acquiredOn: try parseDay(acquired, option: "--acquired"), notes: notes, photo: photoData
        )
        if let client = try trefleClient(), plant.species != nil,
           let failure = await environment.collection.enrichCareProfile(ofPlant: plant.id, client: client) {
            console.warn("warning: \(failure) The plant was added with PlantGuide's own care profile.")
        }
        if output.json {
            try console.printJSON(PlantJSON(plant: plant))
            return
        }
        console.print("Added" + console.plantLine(plant))
        if let notice = environment.catalog.renamingNotice(for: species ?? name.joined(separator: " "))?.notice {
            console.print(console.style("  " + notice, .dim))
        }
        if plant.species == nil { console.print(console.style("  Not in the catalog: using general care defaults.", .dim)) }
    }

    /// A Trefle client when `TREFLE_TOKEN` is set.
    private func trefleClient() throws -> TrefleClient? {
        let environment = ProcessInfo.processInfo.environment
        guard let token = environment["TREFLE_TOKEN"], !token.isEmpty else { return nil }
        var baseURL: URL?
        if let override = environment["PLANTGUIDE_TREFLE_URL"], !override.isEmpty {
            guard let url = URL(string: override), url.scheme == "http" || url.scheme == "https" else {
                throw ValidationError("PLANTGUIDE_TREFLE_URL must be an http(s) URL.")
            }
            baseURL = url
        }
        return try TrefleClient(token: token, baseURL: baseURL, timeout: 5)
    }
}
