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

            Examples:
              plantguide model info resnet50-plantnet300k
              plantguide model info resnet18-plantnet300k --json
            """
    )

    @Argument(help: "The model's name, as `plantguide model list` shows it.")
    var name: String

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
        if output.json {
            try console.printJSON(InstalledModelJSON(model, integrity: integrity))
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
    }
}
