import ArgumentParser
import Foundation
import PlantArchive
import PlantClassifier
import PlantGuideCore
import PlantStore

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an exported collection (.zip) or a CSV list of plant names.",
        discussion: """
            A .zip made by `plantguide export` is merged into the collection: anything already there \
            (same plant, event, photo or identification) is skipped, so importing twice is harmless.

            A .csv has a name column and optionally nickname, room and notes. Names are matched \
            against the catalog; unmatched rows are listed and not imported.

            Examples:
              plantguide import my-plants.zip
              plantguide import plants.csv --json
            """
    )

    @Argument(help: "The .zip or .csv file to read.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let data = try readInputFile(file)
        if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            let archive = CollectionArchive(store: environment.store, photos: environment.collection.photos)
            let summary = try await archive.importArchive(from: URL(fileURLWithPath: file))
            if output.json {
                try console.printJSON(summary)
            } else {
                console.print(
                    "Imported \(counted(summary.plantsAdded, "plant")) (\(summary.plantsAlreadyPresent) already present), "
                        + "\(counted(summary.eventsAdded, "care event")), \(counted(summary.photosAdded, "photo")), "
                        + "\(counted(summary.identificationsAdded, "identification")), "
                        + "\(counted(summary.healthRecordsAdded, "health record")).")
            }
            if summary.photosAdded > 0 { await indexPhotos(environment, console: console) }
            return
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("\(file) is neither a PlantGuide export (.zip) nor a UTF-8 CSV file.")
        }
        let report = try await CSVPlantImport(collection: environment.collection).run(text)
        if output.json {
            try console.printJSON(CSVJSON(
                added: report.added.map(PlantJSON.init), alreadyPresent: report.alreadyPresent, unmatched: report.unmatched
            ))
            return
        }
        for plant in report.added {
            console.print("Added" + console.plantLine(plant))
            if let notice = environment.catalog.renamingNotice(for: plant.name)?.notice { console.print(console.style("  " + notice, .dim)) }
        }
        if report.alreadyPresent > 0 { console.print("\(report.alreadyPresent) already in the collection.") }
        if !report.unmatched.isEmpty {
            console.print(console.style("Not in the catalog (not imported):", .yellow))
            for row in report.unmatched { console.print("  line \(row.line): \(row.name)") }
        }
    }

    /// Archives carry photos, not their embeddings: the imported photos are indexed with the installed model at once,
    /// so the plants are recognised. Without a model (or when it cannot be loaded) they wait for
    /// `plantguide collection reindex`, which is said; the import itself stands either way.
    private func indexPhotos(_ environment: CollectionEnvironment, console: Console) async {
        guard let url = ModelStore(dataDirectory: environment.directory).defaultModel() else { return }
        do {
            let embedder = PhotoEmbedder.live(classifier: try Classifier(contentsOf: url))
            let (indexed, failures) = try await CollectionReindexCommand.indexPending(environment, with: embedder)
            if !output.json { console.print("Indexed \(counted(indexed, "photo")) for recognising your plants.") }
            if !failures.isEmpty {
                console.warn("warning: \(counted(failures.count, "photo")) could not be indexed; `plantguide collection reindex` tries again.")
            }
        } catch {
            console.warn("warning: the imported photos were not indexed (\(error)); run `plantguide collection reindex`.")
        }
    }

    private struct CSVJSON: Encodable {
        var added: [PlantJSON]
        var alreadyPresent: Int
        var unmatched: [CSVImportReport.Unmatched]
    }
}
