import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the collection database, even while it is in use.",
        discussion: """
            Uses SQLite's online backup. Photos are not part of the database; `plantguide export` \
            includes them.

            Example:
              plantguide backup ~/backups/plants-2026-03-01.sqlite
            """
    )

    @Argument(help: "The file to write.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = Console()
        let database = try CollectionEnvironment.load().database
        let url = URL(fileURLWithPath: file)
        try database.backup(to: url)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        if output.json {
            try console.printJSON(BackupJSON(file: file, bytes: size, plants: try database.plantCount()))
        } else {
            console.print("Backed up \(counted(try database.plantCount(), "plant")) to \(file) (\(counted(size, "byte"))).")
        }
    }

    private struct BackupJSON: Encodable {
        var file: String
        var bytes: Int
        var plants: Int
    }
}
