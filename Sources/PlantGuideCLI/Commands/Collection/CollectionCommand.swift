import ArgumentParser

struct CollectionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Your plants: add, list, show and remove them, and keep their photos.",
        discussion: """
            The collection lives in collection.sqlite in the data directory, or in the database --database URL \
            (or $PLANTGUIDE_DATABASE_URL) names, as for `plantguide serve`; photos are kept under photos/ in the \
            data directory, named by their SHA-256.

            Examples:
              plantguide collection add "Monstera deliciosa" --room "Living room" --nickname Monty
              plantguide collection list --room "Living room"
              plantguide collection show 1 --json
              plantguide collection find new-leaf.jpg       # which of my plants is this?
            """,
        subcommands: [
            CollectionAddCommand.self, CollectionListCommand.self, CollectionShowCommand.self,
            CollectionRemoveCommand.self, CollectionPhotoCommand.self, CollectionFindCommand.self,
            CollectionReindexCommand.self, CollectionConfirmCommand.self, CollectionUnconfirmCommand.self,
            CollectionHealthCommand.self,
        ]
    )
}
