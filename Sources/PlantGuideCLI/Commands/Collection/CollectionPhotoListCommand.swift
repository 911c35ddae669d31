import ArgumentParser
import Foundation
import PlantStore

struct CollectionPhotoListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a plant's photos, oldest first, marking the cover.",
        discussion: """
            Each photo is named by the start of its SHA-256, which `photo remove` and `photo set-cover` take.

            Example:
              plantguide collection photo list 3 --json
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let photos = try await environment.store.photos(ofPlant: id.value)
        if output.json {
            try console.printJSON(photos.map { PlantPhotoJSON($0, library: environment.collection.photos) })
            return
        }
        guard !photos.isEmpty else {
            console.print("Plant #\(id) has no photos. Add one with `plantguide collection photo add \(id) PHOTO`.")
            return
        }
        for entry in photos {
            let size = entry.photo.width.flatMap { width in entry.photo.height.map { "\(width)×\($0)" } } ?? "?"
            let added = entry.addedAt.formatted(.iso8601.year().month().day())
            console.print("  \(console.style(String(entry.photo.sha256.prefix(12)), .bold))  \(size)  added \(added)"
                + (entry.isCover ? console.style("  cover", .cyan) : ""))
        }
    }
}

/// A plant's photo in `photo list --json`: the photo's fields, when it was added and whether it is the cover.
struct PlantPhotoJSON: Encodable {
    var photo: PhotoJSON
    var addedAt: Date
    var cover: Bool

    init(_ entry: PlantPhoto, library: PhotoLibrary) {
        photo = PhotoJSON(photo: entry.photo, library: library)
        addedAt = entry.addedAt
        cover = entry.isCover
    }

    private enum CodingKeys: String, CodingKey { case addedAt, cover }

    // The photo's own fields sit beside `addedAt` and `cover`, as in `collection show --json`.
    func encode(to encoder: any Encoder) throws {
        try photo.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(addedAt, forKey: .addedAt)
        try container.encode(cover, forKey: .cover)
    }
}

/// Finds one of a plant's photos by its SHA-256 or a prefix of at least 6 characters that only it has.
func resolvePlantPhoto(_ reference: String, plantId: Int64, store: any CollectionStore) async throws -> PlantPhoto {
    let prefix = reference.lowercased()
    guard prefix.count >= 6, prefix.allSatisfy(\.isHexDigit) else {
        throw ValidationError("'\(reference)' is not a photo: give at least 6 characters of its SHA-256, as `collection photo list \(plantId)` shows.")
    }
    let matches = try await store.photos(ofPlant: plantId).filter { $0.photo.sha256.hasPrefix(prefix) }
    switch matches.count {
    case 1: return matches[0]
    case 0: throw StoreError.invalid("Plant #\(plantId) has no photo starting \(prefix) (see `plantguide collection photo list \(plantId)`).")
    default: throw StoreError.invalid("Several photos of plant #\(plantId) start \(prefix): give more characters.")
    }
}
