import ArgumentParser
import Foundation
import PlantCatalog
import PlantClassifier
import PlantGuideCore

/// `plantguide model labels`: what each output class of a model means.
struct ModelLabelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels",
        abstract: "List a model's classes with their genus, family and common names.",
        discussion: """
            Without --model, the installed default's classes are listed, or PlantNet-300K's 1,081 classes \
            when no model is installed. Only the model file's header is read, not its weights.

            commonNameLevel says whether the English names are the species' own (species) or only its \
            genus's (genus, e.g. "stonecrop" for a Sedum): families follow APG IV / PPG I; names come \
            from the catalog, ITIS and PlantGuide's genus table (see NOTICE.md).

            --format plantlabels writes PlantLabels.json for an Apple app beside the Core ML model (`plantguide \
            model export`): {"labels": [{"index", "scientificName", "commonNames", "family"}], "version", "source"}, \
            every class in the model's order (to --output, else standard output).

            Examples:
              plantguide model labels
              plantguide model labels --json | jq '.[] | select(.family == "Araceae")'
              plantguide model labels --model ~/models/resnet18.pgmodel
              plantguide model labels --format plantlabels --output PlantLabels.json
            """
    )

    /// What the command writes.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// One line per class (or `--json`: every field).
        case list
        /// The Apple app's `PlantLabels.json`.
        case plantlabels
    }

    @Option(help: "Model file whose classes to list, instead of the installed default.")
    var model: String?

    @Option(help: "What to write: list (the default) or plantlabels (PlantLabels.json for an Apple app).")
    var format: Format = .list

    @Option(name: .customLong("output"), help: "With --format plantlabels: the file to write (standard output when left out).")
    var destination: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if destination != nil, format != .plantlabels { throw ValidationError("--output writes PlantLabels.json: add --format plantlabels.") }
        if output.json, format == .plantlabels { throw ValidationError("--format plantlabels is JSON already: leave out --json.") }
    }

    /// One class in `--json`.
    struct Label: Encodable {
        var index: Int
        var speciesId: String?
        var scientificName: String
        var genus: String?
        var family: String?
        var commonNames: [String]
        var commonNameLevel: CommonNameLevel?

        private enum CodingKeys: String, CodingKey {
            case index, speciesId, scientificName, genus, family, commonNames, commonNameLevel
        }

        // Optional keys are written as null so every class has the same keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(speciesId, forKey: .speciesId)
            try container.encode(scientificName, forKey: .scientificName)
            try container.encode(genus, forKey: .genus)
            try container.encode(family, forKey: .family)
            try container.encode(commonNames, forKey: .commonNames)
            try container.encode(commonNameLevel, forKey: .commonNameLevel)
        }
    }

    func run() async throws {
        let console = Console()
        let labels = try Self.labels(model: model.map { URL(fileURLWithPath: $0) } ?? ModelStore(dataDirectory: .resolve()).defaultModel())
        if format == .plantlabels {
            try writePlantLabels(labels, console: console)
            return
        }
        if output.json {
            try console.printJSON(labels)
            return
        }
        let width = String(labels.count - 1).count
        for label in labels {
            var line = String(repeating: " ", count: width - String(label.index).count) + "\(label.index)  "
            line += console.style(label.scientificName, .bold)
            if let name = label.commonNames.first {
                line += " — " + name + (label.commonNameLevel == .genus ? console.style(" (genus name)", .dim) : "")
            }
            if let family = label.family { line += "  " + console.style("(\(family))", .dim) }
            console.print(line)
        }
    }

    /// The Apple app's labels file: `{"labels": [{"index", "scientificName", "commonNames", "family"}], "version",
    /// "source"}`.
    struct PlantLabelsFile: Encodable {
        struct Entry: Encodable {
            var index: Int
            var scientificName: String
            var commonNames: [String]
            var family: String?

            private enum CodingKeys: String, CodingKey { case index, scientificName, commonNames, family }

            // A family the directory lacks is written as null, so every class has the same keys.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(index, forKey: .index)
                try container.encode(scientificName, forKey: .scientificName)
                try container.encode(commonNames, forKey: .commonNames)
                try container.encode(family, forKey: .family)
            }
        }

        var labels: [Entry]
        var version: String
        var source: String

        init(_ labels: [Label]) {
            self.labels = labels.map { Entry(index: $0.index, scientificName: $0.scientificName, commonNames: $0.commonNames, family: $0.family) }
            version = "PlantGuide \(PlantGuideVersion.current), \(labels.count) classes"
            source = labels.contains { $0.family != nil }
                ? "Classes: PlantNet-300K (Garcin et al., NeurIPS 2021 Datasets and Benchmarks). Families: APG IV / "
                    + "PPG I. English names: PlantGuide's species directory (its catalog, ITIS and its genus table; see NOTICE.md)."
                : "Classes: the model file's label set, without families or common names."
        }
    }

    private func writePlantLabels(_ labels: [Label], console: Console) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(PlantLabelsFile(labels))
        guard let destination else {
            console.print(String(decoding: data, as: UTF8.self))
            return
        }
        let url = URL(fileURLWithPath: destination)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            console.warn("error: cannot write '\(destination)': \((error as NSError).localizedDescription)")
            throw ExitCode(1)
        }
        console.print("Wrote \(labels.count) labels to \(url.path) (\(data.count) bytes).")
    }

    /// The classes of the model at `url` (PlantNet-300K's when `nil`), named from the species directory.
    static func labels(model url: URL?) throws -> [Label] {
        let labelSet: LabelSet
        if let url {
            let manifest: ModelManifest
            do {
                manifest = try ModelFile.manifest(at: url)
            } catch {
                throw ValidationError("Cannot read the model file '\(url.path)': \(error)")
            }
            labelSet = try LabelSet.named(manifest.labels, classes: manifest.classes)
        } else {
            labelSet = try LabelSet.plantNet300K()
        }
        let directory = SpeciesDirectory()
        let entries = labelSet.name == "plantnet300k" ? try directory.entries() : []
        return labelSet.labels.enumerated().map { index, label in
            guard index < entries.count else {
                return Label(index: index, speciesId: label.speciesId, scientificName: label.binomial, genus: nil, family: nil,
                             commonNames: [], commonNameLevel: nil)
            }
            let entry = entries[index]
            return Label(
                index: index, speciesId: entry.speciesId, scientificName: entry.binomial, genus: entry.genus,
                family: entry.family, commonNames: entry.commonNames["en"] ?? [], commonNameLevel: entry.commonNameLevel
            )
        }
    }
}
