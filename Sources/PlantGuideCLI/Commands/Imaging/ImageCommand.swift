import ArgumentParser

/// `plantguide image …`: look at and prepare photos.
struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Prepare photos for identification.",
        discussion: """
            Reads JPEG, PNG, WebP and HEIC photos (recognised by their content, not their name), \
            turns them upright and normalises them to 8-bit RGB.

            Examples:
              plantguide image prepare leaf.heic --output leaf.npy
              plantguide image upload leaf.heic --output leaf-upload.jpg
            """,
        subcommands: [PrepareImageCommand.self, UploadImageCommand.self]
    )
}
