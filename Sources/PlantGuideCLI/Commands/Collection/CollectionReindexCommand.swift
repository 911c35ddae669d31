import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore
import PlantStore

/// `plantguide collection reindex`: computes the embeddings that recognition searches, for photos that have none
/// or have one of another model.
struct CollectionReindexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reindex",
        abstract: "Compute the embeddings PlantGuide recognises your plants by, for photos that lack them.",
        discussion: """
            Every photo of a plant gets an embedding from the on-device model (the numbers the model sees \
            a photo as), which `identify` and `collection find` compare new photos with. Photos added with \
            a model installed get theirs at once; this command computes the missing ones (photos added \
            before, or without a model) and the stale ones (made by another model than the one used now, \
            e.g. after `plantguide model install`). Photos already indexed by the model are skipped, so it \
            is safe to run again.

            Examples:
              plantguide collection reindex
              plantguide collection reindex --model ~/models/resnet18.pgmodel --json
            """
    )

    @Option(help: "On-device model file to index with instead of the installed default.")
    var model: String?

    @OptionGroup var output: OutputOptions

    struct Failure: Encodable {
        var photo: String
        var error: String
    }

    private struct Report: Encodable {
        var model: EmbeddingModel
        var photos: Int
        var indexed: Int
        var alreadyCurrent: Int
        var failed: [Failure]
    }

    /// Embeds every photo of the collection that has no embedding of `embedder`'s model, with a progress bar.
    static func indexPending(
        _ environment: CollectionEnvironment, with embedder: PhotoEmbedder
    ) async throws -> (indexed: Int, failures: [Failure]) {
        let pending = try await environment.store.photosNeedingEmbedding(model: embedder.model)
        let bar = ProgressBar(label: "Indexing")
        var failures: [Failure] = []
        for (index, photo) in pending.enumerated() {
            bar.update(done: Double(index), total: Double(pending.count), detail: "\(index)/\(pending.count)", force: index == 0)
            do {
                _ = try await environment.collection.reindex(photo, with: embedder)
            } catch {
                failures.append(Failure(photo: photo.sha256, error: "\(error)"))
            }
        }
        bar.update(done: Double(pending.count), total: Double(pending.count), detail: "\(pending.count)/\(pending.count)", force: true)
        bar.finish()
        return (pending.count - failures.count, failures)
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let classifier = try CollectionFindCommand.loadClassifier(model)
        let embedder = PhotoEmbedder.live(classifier: classifier)
        let environment = try CollectionEnvironment.load(context)
        let before = try await environment.store.embeddingCoverage(model: embedder.model)
        let (indexed, failures) = try await Self.indexPending(environment, with: embedder)
        let report = Report(
            model: embedder.model, photos: before.photos, indexed: indexed, alreadyCurrent: before.current, failed: failures
        )
        if output.json {
            try console.printJSON(report)
        } else {
            console.print("Indexed \(counted(report.indexed, "photo")) with \(embedder.model.name)"
                + " (\(report.alreadyCurrent) of \(counted(report.photos, "photo")) already were).")
            for failure in failures {
                console.warn(console.style("error: photo \(failure.photo.prefix(12)): \(failure.error)", .red))
            }
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}
