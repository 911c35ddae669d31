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
            (record 4726653, <arch>_weights_best_acc.tar; weights of about 100 MB for ResNet50, 45 MB for ResNet18) \
            and checks the file against the size and MD5 checksum the record publishes. An interrupted \
            download resumes where it stopped when you run the command again; two installs of the same \
            file at once share one download. The model becomes the default only once the archive is whole \
            and holds a network of the architecture with the 1,081 PlantNet-300K classes.

            PLANTGUIDE_MODEL_URL=BASE downloads BASE/<arch>_weights_best_acc.tar instead (a mirror, or \
            weights of your own under the same names): there the published checksum is shown, not \
            enforced. Only https is downloaded (plain http only from this machine), and redirects are \
            followed only to https.

            Examples:
              plantguide model install                                   ResNet50 from Zenodo.
              plantguide model install --arch resnet18                   Faster, smaller, less accurate.
              plantguide model install --if-missing                      Only when no default model is installed.
              plantguide model install ~/Downloads/resnet50_weights_best_acc.tar
              plantguide model install https://example.org/mirror/resnet50_weights_best_acc.tar
              PLANTGUIDE_MODEL_URL=https://example.org/mirror/ plantguide model install
            """
    )

    @Argument(help: "A checkpoint file or an https URL; the official download (or PLANTGUIDE_MODEL_URL) if omitted.")
    var source: String?

    @Option(help: "Architecture (guessed from the file name when possible; default resnet50).")
    var arch: String?

    @Option(help: "Weight storage: float16 or float32.")
    var precision: WeightPrecision = .float16

    @Flag(help: "Do nothing when a default model is installed already (what scripts/run uses).")
    var ifMissing = false

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
        if ifMissing, let model = store.defaultModel() {
            if output.json {
                try console.printModelSummary(at: model, json: true, isDefault: true)
            } else {
                console.print("The default on-device model is installed: \(model.deletingPathExtension().lastPathComponent).")
            }
            return
        }
        let model: URL
        do {
            if let source, !isRemote(source) {
                let checkpoint = URL(fileURLWithPath: source)
                // A local checkpoint is recorded by its path.
                let options = CheckpointImporter.Options(architecture: architecture(for: checkpoint.lastPathComponent), precision: precision)
                model = try store.install(checkpoint: checkpoint, options: options)
            } else if let source, let url = URL(string: source) {
                model = try await download(url, store: store, console: console)
            } else {
                model = try await installFromSource(store: store, console: console)
            }
        } catch let error as ClassifierError {
            console.warn("\(error)")
            if case .downloadFailed = error {
                console.warn("Without internet access, download the file on another machine and run `plantguide model install FILE`.")
            }
            throw ExitCode(1)
        }
        try console.printModelSummary(at: model, json: output.json, isDefault: true)
        if !output.json { console.print("Saved plants identified with another model can be re-scored with it: `plantguide recheck rescore`.") }
    }

    /// The official record (or PLANTGUIDE_MODEL_URL), checked against the published checksum.
    private func installFromSource(store: ModelStore, console: Console) async throws -> URL {
        let architecture = arch.flatMap(ResNetArchitecture.init(name:)) ?? .resnet50
        let source = try ModelSource.fromEnvironment()
        let name = ModelSource.fileName(for: architecture)
        let bar = ProgressBar(label: "Downloading \(name)", logLines: true)
        let meter = DownloadMeter()
        let installer = ModelInstaller(store: store, source: source)
        if !output.json { console.print("Installing \(architecture.rawValue) from \(source.description).") }
        let report: ModelInstaller.Report
        do {
            report = try await installer.install(architecture: architecture, precision: precision) { event in
                switch event {
                case .downloading(let received, let total):
                    bar.update(done: Double(received), total: total.map(Double.init), detail: meter.detail(received, total))
                case .waitingForAnother(let received):
                    bar.update(done: Double(received), total: nil, detail: "another install is downloading: \(meter.detail(received, nil))")
                case .checking:
                    bar.finish()
                case .importing:
                    break
                }
            }
        } catch {
            bar.finish()
            throw error
        }
        switch report.checksum {
        case .matches(let md5):
            console.warn("Checked against \(source.description): MD5 \(md5) and size as published.")
        case .differs(let published, let actual):
            console.warn("This file's MD5 is \(actual); Zenodo publishes \(published) for \(name). Not enforced for "
                + "\(ModelSource.mirrorVariable), which may hold other weights; the archive was checked and imported.")
        case .unpublished(let actual, let why):
            console.warn("MD5 \(actual) not compared: \(why). The archive was checked and imported.")
        case .installedByAnother:
            console.warn("Another install of \(name) finished meanwhile; using the model it installed.")
        }
        return report.model
    }

    /// A checkpoint at a URL the user named: downloaded (resuming), imported, made the default.
    private func download(_ url: URL, store: ModelStore, console: Console) async throws -> URL {
        let name = url.lastPathComponent.isEmpty ? "checkpoint.tar" : url.lastPathComponent
        let checkpoint = store.downloads.appendingPathComponent(name)
        let bar = ProgressBar(label: "Downloading \(name)", logLines: true)
        let meter = DownloadMeter()
        do {
            try await ModelDownloader().download(from: url, to: checkpoint) { received, total in
                bar.update(done: Double(received), total: total.map(Double.init), detail: meter.detail(received, total))
            }
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        let options = CheckpointImporter.Options(
            architecture: architecture(for: checkpoint.lastPathComponent), precision: precision, source: url.absoluteString
        )
        defer { try? FileManager.default.removeItem(at: checkpoint) }
        return try store.install(checkpoint: checkpoint, options: options)
    }
}

/// The words beside a download's bar: MiB so far and in all, speed, time left (``DownloadProgress``), fed from the
/// download's callbacks.
final class DownloadMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var progress = DownloadProgress()

    func detail(_ received: Int64, _ total: Int64?) -> String {
        lock.withLock {
            progress.update(received: received, total: total)
            return progress.summary(percentage: false)
        }
    }
}
