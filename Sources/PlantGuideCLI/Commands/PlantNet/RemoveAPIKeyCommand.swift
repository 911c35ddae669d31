import ArgumentParser

/// `plantguide config remove-api-key`.
struct RemoveAPIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-api-key",
        abstract: "Delete the saved Pl@ntNet API key.",
        discussion: """
            Example:
              plantguide config remove-api-key
            """
    )

    func run(in context: CommandContext) async throws {
        let removed = PlantNetSetup(context).keyStore.remove()
        Console().print(removed ? "Removed the saved Pl@ntNet API key." : "No saved Pl@ntNet API key.")
    }
}
