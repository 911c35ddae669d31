import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore
import PlantStoreSQLite

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the collection database, even while it is in use.",
        discussion: """
            Uses SQLite's online backup, and copies every household's records. Photos are not part of the \
            database; `plantguide export` includes them. A collection in PostgreSQL is backed up with pg_dump.

            Example:
              plantguide backup ~/backups/plants-2026-03-01.sqlite
            """
    )

    @Argument(help: "The file to write.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        guard let database = try CollectionEnvironment.load(context).store as? CollectionDatabase else {
            throw BackupError(
                description: "plantguide backup copies an SQLite database, and this collection is in PostgreSQL: back it "
                    + "up with pg_dump (see docs/deploy.md), or write a portable archive with photos with `plantguide export`."
            )
        }
        let url = URL(fileURLWithPath: file)
        try database.backup(to: url)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        // The backup holds every household; the count is of the whole database, not only the chosen household's.
        var plants = 0
        for household in try database.households() { plants += try await database.plantCount(ofHousehold: household.id) }
        if output.json {
            try console.printJSON(BackupJSON(file: file, bytes: size, plants: plants))
        } else {
            console.print("Backed up \(counted(plants, "plant")) to \(file) (\(counted(size, "byte"))).")
        }
    }

    private struct BackupJSON: Encodable {
        var file: String
        var bytes: Int
        var plants: Int
    }
}

/// `plantguide backup` on a database it cannot copy.
struct BackupError: Error, CustomStringConvertible {
    let description: String
}
