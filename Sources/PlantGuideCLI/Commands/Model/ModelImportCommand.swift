import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

struct ModelImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert a PyTorch ResNet checkpoint into a PlantGuide model file.",
        discussion: """
            Reads a torch.save file (a bare state dict or PlantNet-300K's {'epoch', 'model', \
            'optimizer'} wrapper), checks every tensor against the architecture, folds batch-norm into \
            the convolutions and writes a .pgmodel file. The pickle inside is read by a restricted \
            reader that refuses anything but tensors and plain data.

            Without --output the model goes to the data directory and becomes the default.

            Examples:
              plantguide model import resnet50_weights_best_acc.tar --arch resnet50
              plantguide model import my.pth --arch resnet18 --labels index --output my.pgmodel --precision float32
            """
    )

    @Argument(help: "The checkpoint file (torch.save zip format).")
    var checkpoint: String

    @Option(help: "Architecture: \(ResNetArchitecture.allCases.map(\.rawValue).joined(separator: ", ")). Guessed from the file name if omitted.")
    var arch: String?

    @Option(help: "Class names: \(LabelSet.knownNames.joined(separator: " or ")).")
    var labels = "plantnet300k"

    @Option(help: "Where to write the model file (default: the data directory, as the default model).")
    var output: String?

    @Option(help: "Weight storage: float16 (half the size) or float32. Computation is float32 either way.")
    var precision: WeightPrecision = .float16

    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        _ = try resolvedArchitecture()
        guard LabelSet.knownNames.contains(labels) else {
            throw ValidationError("Unknown --labels '\(labels)'. Known: \(LabelSet.knownNames.joined(separator: ", ")).")
        }
    }

    func resolvedArchitecture() throws -> ResNetArchitecture {
        if let arch {
            guard let architecture = ResNetArchitecture(name: arch) else {
                throw ValidationError("Unknown --arch '\(arch)'. Known: \(ResNetArchitecture.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return architecture
        }
        guard let guessed = ResNetArchitecture.guess(fromFileName: checkpoint) else {
            throw ValidationError("Cannot tell the architecture from the file name; pass --arch (e.g. --arch resnet50).")
        }
        return guessed
    }

    func run() async throws {
        let console = Console()
        let options = CheckpointImporter.Options(architecture: try resolvedArchitecture(), labels: labels, precision: precision)
        let source = URL(fileURLWithPath: checkpoint)
        let destination: URL
        if let output {
            destination = URL(fileURLWithPath: output)
            try CheckpointImporter().importCheckpoint(at: source, options: options, to: destination)
        } else {
            destination = try ModelStore(dataDirectory: .resolve()).install(checkpoint: source, options: options)
        }
        try console.printModelSummary(at: destination, json: outputOptions.json, isDefault: output == nil)
    }
}

extension WeightPrecision: ExpressibleByArgument {}

/// What `model import` and `model install` print about the model they wrote.
struct ModelSummary: Encodable {
    var file: String
    var architecture: String
    var classes: Int
    var labels: String
    var precision: String
    var bytes: Int
    var inputSize: Int
    var sourceName: String
    var sourceSHA256: String
    /// The checkpoint's path or URL.
    var source: String?
    var importedAt: Date?
    var isDefault: Bool
}

extension Console {
    func printModelSummary(at url: URL, json: Bool, isDefault: Bool) throws {
        let manifest = try ModelFile.manifest(at: url)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let summary = ModelSummary(
            file: url.path, architecture: manifest.architecture.rawValue, classes: manifest.classes,
            labels: manifest.labels, precision: manifest.precision.rawValue, bytes: bytes, inputSize: manifest.input.size,
            sourceName: manifest.sourceName, sourceSHA256: manifest.sourceSHA256, source: manifest.source,
            importedAt: manifest.importedAt, isDefault: isDefault
        )
        if json {
            try printJSON(summary)
            return
        }
        print("Imported \(style(manifest.architecture.rawValue, .bold)): \(manifest.classes) classes (\(manifest.labels)), "
            + "\(manifest.precision.rawValue) weights, \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB")
        print("  model file  \(url.path)\(isDefault ? "  (default)" : "")")
        print("  source      \(manifest.source ?? manifest.sourceName)  sha256 \(manifest.sourceSHA256)")
    }
}
