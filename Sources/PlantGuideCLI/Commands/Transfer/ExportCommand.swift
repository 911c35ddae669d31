import ArgumentParser
import Foundation
import PlantArchive
import PlantGuideCore
import PlantStore

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the whole collection to a ZIP file (JSON plus photos).",
        discussion: """
            The archive holds collection.json (plants, care profiles, schedules, care log, \
            identification history; format described in docs/collection-export.md) and the photo \
            files. `plantguide import` reads it back without creating duplicates.

            Example:
              plantguide export my-plants.zip
            """
    )

    @Argument(help: "The ZIP file to write.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        var archive = CollectionArchive(store: environment.store, photos: environment.collection.photos)
        archive.generator = "PlantGuide \(PlantGuideVersion.current)"
        let content = try await archive.export(to: URL(fileURLWithPath: file), now: Date())
        let counts = TransferCounts(
            file: file, plants: content.plants.count, events: content.plants.reduce(0) { $0 + $1.events.count },
            photos: content.photos.count, identifications: content.identifications.count
        )
        if output.json {
            try console.printJSON(counts)
        } else {
            console.print(
                "Exported \(counted(counts.plants, "plant")), \(counted(counts.events, "care event")), "
                    + "\(counted(counts.photos, "photo")) and \(counted(counts.identifications, "identification")) to \(file).")
        }
    }

    struct TransferCounts: Encodable {
        var file: String
        var plants: Int
        var events: Int
        var photos: Int
        var identifications: Int
    }
}
