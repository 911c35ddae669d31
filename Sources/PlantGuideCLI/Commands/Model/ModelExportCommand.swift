import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

/// `plantguide model export NAME --format coreml`: the installed model as a Core ML package for an Apple app.
struct ModelExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an installed model as a Core ML package (PlantNet300K.mlpackage) for an iOS app.",
        discussion: """
            The package is an ML Program for iOS 17 or later with float16 weights: an RGB image input of the \
            model's size (224×224) and a classifier output (classLabel, and classLabel_probs with a probability \
            per class). Labels are the classes' scientific names; `plantguide model labels --format plantlabels` \
            writes PlantLabels.json beside it with common names and families.

            Normalisation: Core ML scales an image by one number and adds a bias per channel, while the network \
            wants (x/255 − mean) / std per channel. The package scales by 1/255, adds −mean, and has 1/std folded \
            into the first convolution's weights, which is exact (its zero padding included). Batch norm is folded \
            as the importer folded it.

            The conversion runs coremltools 9.0 (from PyPI) in a virtualenv PlantGuide makes on first use \
            (PLANTGUIDE_COREML_VENV, else tools/coreml-venv in the data directory; needs python3 with venv). \
            Core ML cannot run on Linux, so the package is then read back with coremltools and its program \
            evaluated by a small numpy interpreter on a test image, against PlantGuide's own engine (and ONNX \
            Runtime on the same weights when the virtualenv has onnxruntime): the difference of the logits is printed \
            (--no-verify skips this).

            Examples:
              plantguide model export --format coreml
              plantguide model export resnet50-plantnet300k --format coreml --output ~/PlantNet300K.mlpackage
              plantguide model export --format coreml --json
            """
    )

    /// Formats the command writes.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// A Core ML package (ML Program).
        case coreml
    }

    @Argument(help: "The installed model's name, as `plantguide model list` shows it (default: the default model).")
    var name: String?

    @Option(help: "What to write: coreml.")
    var format: Format

    @Option(name: .customLong("output"), help: "The package to write.")
    var destination = "PlantNet300K.mlpackage"

    @Flag(help: "Replace the package when it exists.")
    var force = false

    @Flag(help: "Skip reading the package back and comparing it with PlantGuide's engine.")
    var noVerify = false

    @Flag(help: "Show the converter's own output.")
    var verbose = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard destination.hasSuffix(".mlpackage") else { throw ValidationError("--output names a Core ML package: end it in .mlpackage.") }
    }

    func run() async throws {
        let console = Console()
        let store = ModelStore(dataDirectory: .resolve())
        let model: URL
        if let name {
            model = try store.model(named: name).url
        } else {
            guard let installed = store.defaultModel() else {
                console.warn("error: no model is installed: run `plantguide model install` first, or name one.")
                throw ExitCode(1)
            }
            model = installed
        }
        let target = URL(fileURLWithPath: destination).standardizedFileURL
        if FileManager.default.fileExists(atPath: target.path), !force {
            console.warn("error: \(target.path) exists: choose another --output, or add --force to replace it.")
            throw ExitCode(1)
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-coreml-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            let weights = try CoreMLExport.writeInterchange(model: model, to: work.appendingPathComponent("weights"))
            let python = try CoreMLExport.python(console: console)
            console.warn("Converting \(weights.manifest.displayName) (\(weights.manifest.classes) classes) to Core ML…")
            let exported = try CoreMLExport.runScript(
                "export_coreml.py", python: python,
                arguments: [
                    "--weights", work.appendingPathComponent("weights").path, "--output", target.path,
                    "--source", weights.manifest.source ?? "\(weights.manifest.sourceName), imported by PlantGuide",
                    "--model-version", "PlantGuide \(PlantGuideVersion.current)",
                ] + (verbose ? ["--verbose"] : [])
            )
            var result = Result(package: target.path, export: exported, verification: nil)
            if !noVerify {
                console.warn("Checking the package against PlantGuide's engine…")
                let (image, reference) = try CoreMLExport.reference(model: model, manifest: weights.manifest, in: work)
                // ONNX Runtime joins the comparison when the virtualenv has it (`pip install onnx onnxruntime`).
                let onnx = (try? CoreMLExport.run(python, ["-c", "import onnx, onnxruntime"]))?.status == 0
                result.verification = try CoreMLExport.runScript(
                    "verify_coreml.py", python: python,
                    arguments: [
                        "--package", target.path, "--weights", work.appendingPathComponent("weights").path,
                        "--input", image.path, "--reference", reference.path, "--json",
                    ] + (onnx ? ["--onnxruntime"] : [])
                )
            }
            try print(result, manifest: weights.manifest, console: console)
        } catch let error as CoreMLExport.Failure {
            console.warn("error: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// The `--json` shape: the package, the converter's summary and the check's report.
    struct Result: Encodable {
        var package: String
        var export: ScriptJSON
        var verification: ScriptJSON?
    }

    private func print(_ result: Result, manifest: ModelManifest, console: Console) throws {
        if output.json {
            try console.printJSON(result)
            return
        }
        let bytes = result.export["sizeBytes"]?.number.map { Int($0) } ?? 0
        console.print("Wrote \(result.package) (\(console.mebibytes(bytes)): ML Program for iOS 17, float16 weights, "
            + "\(manifest.input.size)×\(manifest.input.size) RGB image in, \(manifest.classes) labels out).")
        guard let check = result.verification else {
            console.print(console.style("Not checked (--no-verify).", .dim))
            return
        }
        let compared = check["fp32VsReference"]
        let difference = compared?["maxAbsDiff"]?.number ?? .nan
        let scale = check["logitScale"]?.number ?? .nan
        let top5 = compared?["top5Overlap"]?.number.map { Int($0) } ?? 0
        let top1 = compared?["top1Equal"]?.bool == true ? "the same best class" : "a different best class"
        console.print("Checked on Linux with coremltools \(check["coremltools"]?.string ?? "?"): its program, evaluated in "
            + "float32, gives logits within \(String(format: "%.4f", difference)) of PlantGuide's engine (largest logit "
            + "\(String(format: "%.2f", scale))), \(top1), \(top5) of the top 5 in common.")
        if let onnx = check["onnxruntime"], let versusCoreML = onnx["logitsMaxAbsDiffVsCoreML"]?.number,
            let versusEngine = onnx["logitsMaxAbsDiffVsReference"]?.number {
            console.print("ONNX Runtime \(onnx["version"]?.string ?? "?") on the same weights: within "
                + "\(String(format: "%.4f", versusCoreML)) of the package's program and \(String(format: "%.6f", versusEngine)) "
                + "of PlantGuide's engine.")
        }
        console.print("Labels for the app: plantguide model labels --format plantlabels --output PlantLabels.json")
    }
}
