import ArgumentParser
import PlantStore

/// `plantguide collection health`: the diagnoses kept in a plant's history.
struct CollectionHealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "The diagnoses kept in a plant's history (`plantguide diagnose … --plant ID --save`).",
        discussion: """
            `plantguide collection show ID` lists them under Health, with their ids.

            Examples:
              plantguide collection health remove 3 2
            """,
        subcommands: [CollectionHealthRemoveCommand.self]
    )
}

struct CollectionHealthRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a kept diagnosis from a plant's history (its photos' files go when nothing else uses them).",
        discussion: """
            Example:
              plantguide collection health remove 3 2
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The health record's id (see `collection show ID`).")
    var record: Int64

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        guard try await environment.collection.removeHealthRecord(record, ofPlant: id.value) else {
            console.warn("error: plant #\(id.value) has no health record \(record) (`plantguide collection show \(id.value)` lists them).")
            throw ExitCode(1)
        }
        if output.json {
            try console.printJSON(["removed": record])
        } else {
            console.print("Removed health record \(record) from plant #\(id.value).")
        }
    }
}
