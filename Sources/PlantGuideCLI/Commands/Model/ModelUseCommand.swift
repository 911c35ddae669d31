import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

/// `plantguide model use NAME`: choose the default model.
struct ModelUseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "use",
        abstract: "Make an installed model the default for identify and the web app.",
        discussion: """
            The model's weights are checked first, so a damaged file is never made the default. A running \
            `plantguide serve` picks the new default up when it restarts.

            Examples:
              plantguide model use resnet18-plantnet300k
              plantguide model list                        The names to choose from.
            """
    )

    @Argument(help: "The model's name, as `plantguide model list` shows it.")
    var name: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = Console()
        let model = try ModelStore(dataDirectory: .resolve()).use(name)
        if output.json {
            try console.printJSON(InstalledModelJSON(model))
            return
        }
        console.print("\(console.style(model.name, .bold)) is now the default model: identify uses it unless --model is given.")
        console.print("Saved plants identified with another model can be re-scored with it: `plantguide recheck rescore`.")
    }
}
