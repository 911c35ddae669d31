import ArgumentParser

struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Install, list, choose and inspect on-device identification models.",
        discussion: """
            PlantGuide runs the PlantNet-300K ResNet models itself. It reads PyTorch checkpoints \
            directly (no Python needed) and converts them to its own model file, which records the \
            checkpoint's SHA-256 and source and a checksum of every weight tensor: a file changed after \
            import is refused when loaded.

            Examples:
              plantguide model install                              Download ResNet50 and make it the default.
              plantguide model install ~/Downloads/resnet50_weights_best_acc.tar
              plantguide model list                                 The installed models; * marks the default.
              plantguide model info resnet50-plantnet300k           One model, its weights checked.
              plantguide model use resnet18-plantnet300k            Make another installed model the default.
              plantguide model remove resnet18-plantnet300k
              plantguide model import resnet18.tar --arch resnet18 --output r18.pgmodel
              plantguide model inspect resnet50_weights_best_acc.tar --json
              plantguide model labels --json                        The classes with genus, family, common names.
            """,
        subcommands: [
            ModelInstallCommand.self, ModelImportCommand.self, ModelListCommand.self, ModelInfoCommand.self, ModelUseCommand.self,
            ModelRemoveCommand.self, ModelInspectCommand.self, ModelLabelsCommand.self, ModelExportCommand.self,
        ]
    )
}
