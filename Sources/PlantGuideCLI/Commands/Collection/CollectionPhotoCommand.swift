import ArgumentParser

struct CollectionPhotoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Manage a plant's photos.",
        discussion: """
            Examples:
              plantguide collection photo add 3 new-leaf.jpg
              plantguide collection photo list 3
              plantguide collection photo set-cover 3 9f2c1a
              plantguide collection photo remove 3 9f2c1a
            """,
        subcommands: [
            CollectionPhotoAddCommand.self, CollectionPhotoListCommand.self, CollectionPhotoRemoveCommand.self,
            CollectionPhotoSetCoverCommand.self,
        ]
    )
}
