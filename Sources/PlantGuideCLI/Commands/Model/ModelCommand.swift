import ArgumentParser

struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Install, import and inspect on-device identification models.",
        discussion: """
            PlantGuide runs the PlantNet-300K ResNet models itself. It reads PyTorch checkpoints \
            directly (no Python needed) and converts them to its own model file.

            Examples:
              plantguide model install                              Download ResNet50 and make it the default.
              plantguide model install ~/Downloads/resnet50_weights_best_acc.tar
              plantguide model import resnet18.tar --arch resnet18 --output r18.pgmodel
              plantguide model inspect resnet50_weights_best_acc.tar --json
              plantguide model labels --json                        The classes with genus, family, common names.
            """,
        subcommands: [ModelInstallCommand.self, ModelImportCommand.self, ModelInspectCommand.self, ModelLabelsCommand.self]
    )
}
