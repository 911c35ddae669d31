import ArgumentParser

/// Developer tools, hidden from help: used by the crash-safety tests.
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Developer tools (used by tests).",
        shouldDisplay: false,
        subcommands: [WriteStressCommand.self]
/// `plantguide dev …`: tools for development and demos.
        abstract: "Tools for development and demos.",
        discussion: """
            Example:
              plantguide dev plantnet-stub --port 8089
            """,
        subcommands: [PlantNetStubCommand.self]
    )
}
