import ArgumentParser

/// `plantguide config …`: settings kept in the data directory.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Manage settings kept in the data directory.",
        discussion: """
            Examples:
              plantguide config set-api-key < key.txt
              echo "$KEY" | plantguide config set-api-key
              plantguide config remove-api-key
            """,
        subcommands: [SetAPIKeyCommand.self, RemoveAPIKeyCommand.self]
    )
}
