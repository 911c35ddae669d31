import ArgumentParser
import Foundation
import PlantClassifier

struct ModelInspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List the tensors of a PyTorch state-dict checkpoint.",
        discussion: """
            Names are shown as stored (including any `module.` prefix). Nothing in the file is executed.

            Examples:
              plantguide model inspect resnet50_weights_best_acc.tar
              plantguide model inspect model.pth --json
              → {"tensors": [{"dtype": "float32", "name": "conv1.weight", "shape": [64, 3, 7, 7]}, …]}
            """
    )

    @Argument(help: "The checkpoint file (torch.save zip format).")
    var checkpoint: String

    @OptionGroup var output: OutputOptions

    private struct Listing: Encodable {
        var tensors: [TorchCheckpoint.TensorInfo]
    }

    func run() async throws {
        let console = Console()
        let tensors = try TorchCheckpoint(contentsOf: URL(fileURLWithPath: checkpoint)).tensors
        if output.json {
            try console.printJSON(Listing(tensors: tensors))
            return
        }
        let width = tensors.map(\.name.count).max() ?? 0
        for tensor in tensors {
            let shape = "[" + tensor.shape.map(String.init).joined(separator: ", ") + "]"
            console.print("\(tensor.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(tensor.dtype.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  \(shape)")
        }
        let values = tensors.reduce(0) { $0 + $1.shape.reduce(1, *) }
        console.print(console.style("\(tensors.count) tensors, \(values) values", .dim))
    }
}
