import ArgumentParser
import Foundation

/// `plantguide cache clear`.
struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Forget every cached Pl@ntNet answer.",
        discussion: """
            Example:
              plantguide cache clear
            """
    )

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let removed = try await PlantNetSetup(context).cache(console: console).clear()
        if output.json {
            try console.printJSON(["removed": removed])
        } else {
            console.print("Removed \(removed) cached answer\(removed == 1 ? "" : "s").")
        }
    }
}
