import ArgumentParser

/// `plantguide dev …`: tools for development, demos and the crash-safety tests.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Tools for development and demos.",
        discussion: """
            Example:
              plantguide dev plantnet-stub --port 8089
            """,
        subcommands: [PlantNetStubCommand.self, WriteStressCommand.self, DevEmbedCommand.self]
    )
}
