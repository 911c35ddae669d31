import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

/// `plantguide model info NAME`: everything about one installed model, with a check of its weights.
struct ModelInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show one installed model and check its weights against the recorded checksums.",
        discussion: """
            Reads the whole file and compares every tensor with the checksum recorded when it was \
            imported, as every load does. integrity is intact, changed (re-import the checkpoint) or \
            unknown (a file from an older PlantGuide, which recorded none).

            With --plan it also loads the model as `identify` does and lists every convolution with what \
            runs it on this CPU: PlantGuide's own Winograd (AVX2 or AVX-512) or pointwise kernels, or \
            oneDNN's. Where more than one can run a layer, the first load times each and keeps the fastest; the choice is remembered \
            beside the model file (NAME.pgmodel.plan.json) for this CPU and thread count, and the \
            milliseconds shown are those timings.

            Examples:
              plantguide model info resnet50-plantnet300k
              plantguide model info resnet18-plantnet300k --json
              plantguide model info resnet50-plantnet300k --plan
            """
    )

    @Argument(help: "The model's name, as `plantguide model list` shows it.")
    var name: String

    @Flag(help: "Load the model and show which kernels run each layer on this CPU, with their timings.")
    var plan = false

    @Option(help: "CPU threads the plan is for, as `identify --threads` (default: all cores).")
    var threads: Int?

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
        if threads != nil, !plan { throw ValidationError("--threads only applies with --plan.") }
    }

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = Console()
        let model = try ModelStore(dataDirectory: .resolve()).model(named: name)
        var integrity: String?
        var integrityDetail: String?
        if model.manifest != nil {
            do {
                integrity = try ModelFile.verify(at: model.url).rawValue
            } catch let error as ClassifierError {
                guard case .modelFileChanged = error else { throw error }
                integrity = "changed"
                integrityDetail = error.description
            }
        }
        let layers = try plan ? planned(model) : nil
        if output.json {
            var json = InstalledModelJSON(model, integrity: integrity)
            json.plan = layers
            try console.printJSON(json)
            return
        }
        console.print(console.style(model.name, .bold) + (model.isDefault ? console.style("  (default)", .green) : ""))
        var rows: [(String, String)] = [("file", model.url.path), ("size", console.mebibytes(model.bytes))]
        if let manifest = model.manifest {
            rows += [
                ("architecture", "\(manifest.architecture.rawValue) (base width \(manifest.baseWidth))"),
                ("classes", "\(manifest.classes) (\(manifest.labels))"),
                ("precision", manifest.precision.rawValue),
                ("input", "\(manifest.input.size) px crop of the short side resized to \(manifest.input.resize) px"),
                ("source", manifest.source ?? "unknown (file name \(manifest.sourceName))"),
                ("sha256", "\(manifest.sourceSHA256) (of the checkpoint)"),
                ("imported", console.timestamp(manifest.importedAt)),
            ]
        } else {
            rows.append(("problem", model.problem ?? "unreadable"))
        }
        switch integrity {
        case "intact": rows.append(("weights", "intact: every tensor matches its recorded checksum"))
        case "unknown": rows.append(("weights", "unknown: this file records no checksums (imported by an older PlantGuide)"))
        default: break
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            console.print("  " + console.style(label.padding(toLength: width, withPad: " ", startingAt: 0), .dim) + "  " + value)
        }
        if let integrityDetail { console.warn(console.style("warning: " + integrityDetail, .yellow)) }
        if let layers { printPlan(layers, console: console) }
    }

    /// The model loaded as `identify` loads it, and its layers' plan.
    private func planned(_ model: InstalledModel) throws -> [PlannedLayer] {
        guard model.manifest != nil else { throw ClassifierError.invalidModelFile(model.problem ?? "unreadable") }
        return try Classifier(contentsOf: model.url, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount).plan
    }

    private func printPlan(_ layers: [PlannedLayer], console: Console) {
        console.print("")
        console.print(console.style("layers on this CPU", .bold) + console.style("  (\(CPUInfo.current.signature))", .dim))
        let header = ["layer", "shape", "map", "runs on", "own ms", "own AVX-512 ms", "oneDNN ms"]
        let rows = layers.map { layer in
            [
                layer.name, "\(layer.kernel)×\(layer.kernel)/\(layer.stride) \(layer.inChannels)→\(layer.outChannels)",
                "\(layer.mapSide)×\(layer.mapSide)", layer.kernelName,
                layer.milliseconds["own"].map { String(format: "%.3f", $0) } ?? "",
                layer.milliseconds["own-avx512"].map { String(format: "%.3f", $0) } ?? "",
                layer.milliseconds["onednn"].map { String(format: "%.3f", $0) } ?? "",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        console.print("  " + console.style(line(header), .dim))
        for row in rows { console.print("  " + line(row)) }
        let timed = layers.filter { $0.milliseconds.count > 1 }
        let own = timed.filter { $0.kernelName != "oneDNN" }.count
        console.print(
            "  \(timed.count) of \(layers.count) layers timed on more than one engine; \(own) run on PlantGuide's kernels, "
                + "\(timed.count - own) on oneDNN's because they were faster here."
        )
    }
}
