import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

/// `plantguide model list`: the models installed in the data directory.
struct ModelListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the installed on-device models and which one is the default.",
        discussion: """
            Shows each model's name (what `model info`, `model use` and `model remove` take), architecture, \
            classes, weight precision, file size, the SHA-256 and source of the checkpoint it was imported \
            from and when. Models imported by an older PlantGuide show unknown for what they did not record. \
            Only each file's header is read.

            Examples:
              plantguide model list
              plantguide model list --json | jq -r '.[] | select(.isDefault) | .name'
              → [{"name": "resnet50-plantnet300k", "isDefault": true, "architecture": "resnet50", "classes": 1081,
                  "labels": "plantnet300k", "precision": "float16", "bytes": 56851008, "inputSize": 224,
                  "sourceSHA256": "…", "source": "https://zenodo.org/…", "sourceName": "…", "importedAt":
                  "2026-11-24T02:40:00Z", "checksums": true, "file": "…", "integrity": null, "problem": null}]
              Unknown facts (models from older versions) are null; integrity is filled in by `model info`.
            """
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = Console()
        let store = ModelStore(dataDirectory: .resolve())
        let models = store.installedModels()
        if output.json {
            try console.printJSON(models.map { InstalledModelJSON($0) })
            return
        }
        guard !models.isEmpty else {
            console.print("No models installed in \(store.folder.path). Install one with `plantguide model install`.")
            return
        }
        for model in models {
            console.printListing(model)
        }
        if !models.contains(where: \.isDefault) {
            console.warn(console.style(
                "No model is the default: identify uses Pl@ntNet only. Choose one with `plantguide model use NAME`.", .yellow
            ))
        }
    }
}

extension Console {
    /// Two lines for one installed model: what it is, then where it came from.
    func printListing(_ model: InstalledModel) {
        let marker = model.isDefault ? style("*", .green) : " "
        let suffix = model.isDefault ? style("  (default)", .green) : ""
        guard let manifest = model.manifest else {
            print("\(marker) \(style(model.name, .bold))  \(style("unreadable: \(model.problem ?? "unknown problem")", .red))\(suffix)")
            return
        }
        print("\(marker) \(style(model.name, .bold))  \(manifest.architecture.rawValue), \(manifest.classes) classes "
            + "(\(manifest.labels)), \(manifest.precision.rawValue), \(mebibytes(model.bytes))\(suffix)")
        print(style("    from \(manifest.source ?? manifest.sourceName)  sha256 \(manifest.sourceSHA256)  "
            + "imported \(timestamp(manifest.importedAt))", .dim))
    }
}
