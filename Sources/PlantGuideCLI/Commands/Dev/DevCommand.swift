import ArgumentParser

/// `plantguide dev …`: tools for development, demos and tests, hidden from the main help.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Tools for development, demos and tests.",
        discussion: """
            Example:
              plantguide dev plantnet-stub --port 8089
            """,
        shouldDisplay: false,
        subcommands: [PlantNetStubCommand.self, WriteStressCommand.self]
    )
}
