import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

/// `plantguide model remove NAME`: delete an installed model.
struct ModelRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Delete an installed model.",
        discussion: """
            The default model is only removed with --force: without a default, identify has no on-device \
            model and answers with Pl@ntNet only, until `plantguide model use NAME` (or `model install`) \
            chooses one. Other models are removed at once.

            Examples:
              plantguide model remove resnet18-plantnet300k
              plantguide model remove resnet50-plantnet300k --force     Even though it is the default.
            """
    )

    @Argument(help: "The model's name, as `plantguide model list` shows it.")
    var name: String

    @Flag(help: "Remove the model even if it is the default (leaving no default).")
    var force = false

    @OptionGroup var output: OutputOptions

    private struct Removal: Encodable {
        var removed: InstalledModelJSON
        /// The default model after the removal; `null` when there is none.
        var defaultModel: String?

        private enum CodingKeys: String, CodingKey { case removed, defaultModel }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(removed, forKey: .removed)
            try container.encode(defaultModel, forKey: .defaultModel)
        }
    }

    func run() async throws {
        let console = Console()
        let store = ModelStore(dataDirectory: .resolve())
        let model = try store.remove(name, evenIfDefault: force)
        let remaining = store.installedModels()
        let defaultModel = remaining.first(where: \.isDefault)?.name
        if output.json {
            try console.printJSON(Removal(removed: InstalledModelJSON(model), defaultModel: defaultModel))
            return
        }
        console.print("Removed \(console.style(model.name, .bold)) (\(console.mebibytes(model.bytes))).")
        guard model.isDefault else { return }
        let next = remaining.isEmpty
            ? "install one with `plantguide model install`"
            : "choose one with `plantguide model use NAME` (installed: \(remaining.map(\.name).joined(separator: ", ")))"
        console.print(console.style(
            "It was the default: there is no default model now, so identify answers with Pl@ntNet only. To identify "
                + "on the device again, \(next).", .yellow
        ))
    }
}
