import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

/// `plantguide dev embed PHOTO…`: the embeddings recognition compares, for calibrating its thresholds.
struct DevEmbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Print the on-device model's embedding of each photo as JSON (for calibrating thresholds).",
        discussion: """
            Each embedding is the model's pooled features, scaled to length 1; the cosine similarity of \
            two photos is the sum of the products of their numbers. scripts/calibrate-similarity reads \
            this output.

            Example:
              plantguide dev embed spike-1.jpg spike-2.jpg > embeddings.json
            """
    )

    @Argument(help: "Photos (JPEG, PNG, WebP, HEIC).")
    var photos: [String]

    @Option(help: "On-device model file to use instead of the installed default.")
    var model: String?

    private struct Output: Encodable {
        var model: EmbeddingModel
        var photos: [Photo]
    }

    private struct Photo: Encodable {
        var file: String
        var embedding: [Float]?
        var error: String?
    }

    func run() async throws {
        let console = Console()
        let classifier = try CollectionFindCommand.loadClassifier(model)
        var results: [Photo] = []
        for path in photos {
            do {
                results.append(Photo(file: path, embedding: try classifier.embedding(photo: try readInputFile(path))))
            } catch {
                results.append(Photo(file: path, error: "\(error)"))
            }
        }
        try console.printJSON(Output(model: classifier.embeddingModel, photos: results))
        if results.contains(where: { $0.error != nil }) { throw ExitCode(1) }
    }
}
