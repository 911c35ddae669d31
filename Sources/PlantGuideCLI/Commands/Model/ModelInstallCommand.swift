import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore

struct ModelInstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Download (or take) a PlantNet-300K checkpoint, import it and make it the default model.",
        discussion: """
            Without an argument, downloads the official PlantNet-300K weights for --arch from Zenodo \
            (record 4726653, <arch>_weights_best_acc.tar). An interrupted download resumes where it \
            stopped when you run the command again.

            Examples:
              plantguide model install                                   ResNet50 from Zenodo.
              plantguide model install --arch resnet18
              plantguide model install ~/Downloads/resnet50_weights_best_acc.tar
              plantguide model install https://example.org/mirror/resnet50_weights_best_acc.tar
            """
    )

    @Argument(help: "A checkpoint file or an http(s) URL; the official download if omitted.")
    var source: String?

    @Option(help: "Architecture (guessed from the file name when possible; default resnet50).")
    var arch: String?

    @Option(help: "Weight storage: float16 or float32.")
    var precision: WeightPrecision = .float16

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let arch, ResNetArchitecture(name: arch) == nil {
            throw ValidationError("Unknown --arch '\(arch)'. Known: \(ResNetArchitecture.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let source, isRemote(source), URL(string: source)?.host == nil {
            throw ValidationError("'\(source)' is not a valid URL.")
        }
    }

    private func isRemote(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://")
    }

    private func architecture(for name: String) -> ResNetArchitecture {
        arch.flatMap(ResNetArchitecture.init(name:)) ?? ResNetArchitecture.guess(fromFileName: name) ?? .resnet50
    }

    func run() async throws {
        let console = Console()
        let store = ModelStore(dataDirectory: .resolve())
        var checkpoint: URL
        var downloaded = false
        var origin: String?
        if let source, !isRemote(source) {
            checkpoint = URL(fileURLWithPath: source)
        } else {
            let fallback = ModelDownloader.officialURL(for: arch.flatMap(ResNetArchitecture.init(name:)) ?? .resnet50)
            guard let url = source.flatMap(URL.init(string:)) ?? fallback else { throw ValidationError("No URL to download.") }
            let name = url.lastPathComponent.isEmpty ? "checkpoint.tar" : url.lastPathComponent
            checkpoint = store.downloads.appendingPathComponent(name)
            let bar = ProgressBar(label: "Downloading \(name)")
            do {
                try await ModelDownloader().download(from: url, to: checkpoint) { received, total in
                    let mib = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_048_576) }
                    bar.update(
                        done: Double(received), total: total.map(Double.init),
                        detail: total.map { "\(mib(received)) / \(mib($0)) MiB" } ?? "\(mib(received)) MiB"
                    )
                }
                bar.finish()
            } catch {
                bar.finish()
                console.warn("\(error)")
                console.warn("Without internet access, download the file on another machine and run "
                    + "`plantguide model install FILE`.")
                throw ExitCode(1)
            }
            downloaded = true
            origin = url.absoluteString
        }
        // A download is recorded by its URL, a local checkpoint by its path.
        let options = CheckpointImporter.Options(
            architecture: architecture(for: checkpoint.lastPathComponent), precision: precision, source: origin
        )
        let model = try store.install(checkpoint: checkpoint, options: options)
        if downloaded { try? FileManager.default.removeItem(at: checkpoint) }
        try console.printModelSummary(at: model, json: output.json, isDefault: true)
        if !output.json { console.print("Saved plants identified with another model can be re-scored with it: `plantguide recheck rescore`.") }
    }
}
