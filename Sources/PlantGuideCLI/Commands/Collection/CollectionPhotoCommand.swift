import ArgumentParser

struct CollectionPhotoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Manage a plant's photos.",
        discussion: """
            Example:
              plantguide collection photo add 3 new-leaf.jpg
            """,
        subcommands: [CollectionPhotoAddCommand.self]
    )
}
