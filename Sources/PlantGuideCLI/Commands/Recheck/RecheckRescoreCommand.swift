import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore
import PlantStore

/// `plantguide recheck rescore [MODEL]`: re-scores saved identifications with another on-device model.
struct RecheckRescoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rescore",
        abstract: "Re-score saved identifications with a new on-device model, from their stored photos.",
        discussion: """
            Each plant's latest on-device identification made with another model is classified again from its \
            stored photo. The new answer joins the plant's history; when its species differs from the plant's, \
            the plant is flagged with both answers and both model versions (see `plantguide recheck list`). \
            Run it after `plantguide model install` or `model use`; a plant already re-scored with the model \
            is skipped, so an interrupted run picks up where it stopped.

            --json prints {model, rescored, changed, failed, items}.

            Examples:
              plantguide recheck rescore
              plantguide recheck rescore resnet18-plantnet300k --dry-run
              plantguide recheck rescore ~/models/new.pgmodel --json
            """
    )

    @Argument(help: "The model: an installed model's name (see `plantguide model list`) or a model file. Default: the default model.")
    var model: String?

    @Flag(help: "Show which identifications would be re-scored, without classifying anything.")
    var dryRun = false

    @Option(help: "CPU threads for the model (default: all cores).")
    var threads: Int?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let url = try Self.resolve(model, store: ModelStore(dataDirectory: environment.directory))
        let classifier = try Classifier(contentsOf: url, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let rescore = Rescore(collection: environment.collection, model: classifier.manifest.displayName) { photo in
            try classifier.identify(photos: [photo], top: 5, threshold: 0.7)
        }
        if dryRun {
            let candidates = try await rescore.candidates()
            if output.json {
                try console.printJSON(candidates.map {
                    DryRunItem(plantId: $0.plant.id, identificationId: $0.identification.id, previousModel: $0.identification.identification.model)
                })
            } else {
                for candidate in candidates {
                    console.print("plant \(candidate.plant.id) (\(candidate.plant.displayName)): identification \(candidate.identification.id), "
                        + "made with \(candidate.identification.identification.model ?? "an unknown model")")
                }
                console.print("Would re-score \(counted(candidates.count, "identification")) with \(rescore.model).")
            }
            return
        }
        let bar = ProgressBar(label: "Re-scoring")
        let result = try await rescore.run { done, total in
            bar.update(done: Double(done), total: Double(total), detail: "\(done)/\(total)", force: true)
        }
        bar.finish()
        if output.json {
            try console.printJSON(result)
        } else {
            for item in result.items {
                if let error = item.error {
                    console.print("plant \(item.plantId): " + console.style("failed: \(error)", .red))
                    continue
                }
                let answer = item.species.map { "\($0) \(Int(((item.confidence ?? 0) * 100).rounded())) %" } ?? "no answer"
                let before = item.previousSpecies.map { " (was \($0) with \(item.previousModel ?? "an unknown model"))" } ?? ""
                let flag = item.suggestionId.map { console.style("  → suggestion \($0)", .yellow) } ?? ""
                console.print("plant \(item.plantId): \(answer)\(before)\(flag)")
            }
            console.print("Re-scored \(result.rescored) with \(result.model): \(result.changed) changed, \(result.failed) failed.")
        }
        if result.failed > 0 { throw ExitCode(1) }
    }

    private struct DryRunItem: Encodable {
        var plantId: Int64
        var identificationId: Int64
        var previousModel: String?
    }

    /// A model name or file: an installed model's name (as `model list` shows it), a path to a model file, or the default
    /// model when none is given.
    static func resolve(_ name: String?, store: ModelStore) throws -> URL {
        guard let name = name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            guard let url = store.defaultModel() else {
                throw ValidationError("No on-device model is installed. Install one with `plantguide model install`.")
            }
            return url
        }
        var isDirectory: ObjCBool = false
        if name.contains("/"), FileManager.default.fileExists(atPath: name, isDirectory: &isDirectory), !isDirectory.boolValue {
            return URL(fileURLWithPath: name)
        }
        return try store.model(named: name).url
    }
}
