import ArgumentParser
import Foundation
import PlantCatalog
import PlantClassifier
import PlantGuideCore
import PlantIdentification
import PlantNetAPI

struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Identify a plant from one or more photos.",
        discussion: """
            Several photos of the same plant are combined (their probabilities averaged). A folder, \
            more than 5 files, or --batch identifies each photo on its own, with a progress bar.

            Confidence bars are green above 70 %, yellow from 40 to 70 %, red below 40 %; below \
            --threshold the answer is marked uncertain.

            With --strategy (on-device, api, on-device-first, parallel), or when a Pl@ntNet key is set \
            (PLANTNET_API_KEY or `plantguide config set-api-key`), the hybrid identifier answers: \
            Pl@ntNet and the installed model together, falling back to the device when offline.

            Examples:
              plantguide identify leaf.jpg
              plantguide identify leaf.jpg flower.jpg --top 5
              plantguide identify ~/Pictures/garden --json
              plantguide identify photo.heic --model ~/models/resnet18-plantnet300k.pgmodel
              plantguide identify leaf.jpg flower.jpg --organ leaf --organ flower --strategy api
            """
    )

    @Argument(help: "Photos (JPEG, PNG, WebP, HEIC) or folders of photos.")
    var photos: [String]

    @Option(help: "Model file to use instead of the installed default.")
    var model: String?

    @Option(help: "How many species to show.")
    var top = 10

    @Flag(help: "Identify each photo separately instead of combining them.")
    var batch = false

    @Option(help: "CPU threads for the model (default: all cores).")
    var threads: Int?

    @OptionGroup var hybrid: HybridIdentify.Options

    @OptionGroup var output: OutputOptions

    private var threshold: Double { hybrid.threshold }

    func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1.") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
        if !batch, photos.allSatisfy({ !isFolder($0) }) { try hybrid.validate(photoCount: photos.count) }
    }

    /// Whether the photos go to the hybrid identifier (Pl@ntNet and/or the device) or straight to the
    /// on-device classifier: the hybrid one when a strategy is asked for, or when Pl@ntNet is set up and no
    /// classifier-only option (--model, --top, --batch, --threads, a folder) is given.
    private var usesHybrid: Bool {
        let arguments = CommandLine.arguments
        if arguments.contains(where: { $0 == "--strategy" || $0.hasPrefix("--strategy=") }) { return true }
        if model != nil || batch || threads != nil || arguments.contains("--top") || photos.contains(where: isFolder) {
            return false
        }
        return PlantNetSetup().keyStore.key() != nil
    }

    private func isFolder(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    private func runHybrid(console: Console) async throws {
        do {
            let onDevice = ModelStore(dataDirectory: .resolve()).defaultModel() == nil ? nil : try makeIdentifier()
            let (result, quota) = try await HybridIdentify.run(
                photoPaths: photos, options: hybrid, onDevice: onDevice, console: console
            )
            if output.json {
                try console.printJSON(HybridIdentify.Output(result, quota: quota))
            } else {
                HybridIdentify.printText(result, quota: quota, console: console)
            }
        } catch let error as HybridError {
            console.warn("error: \(error)")
            throw ExitCode(1)
        }
    }

    func run() async throws {
        let console = Console()
        if usesHybrid {
            try await runHybrid(console: console)
            return
        }
        let identifier = try makeIdentifier()
        let (files, sawFolder) = try PhotoFiles.expand(photos)
        let enricher = CatalogEnricher(catalog: PlantCatalog())
        if batch || sawFolder || files.count > 5 {
            try await runBatch(files, identifier: identifier, enricher: enricher, console: console)
            return
        }
        let data = try files.map(read)
        var identification = try await identifier.identify(data, top)
        enricher.enrich(&identification)
        if output.json {
            try console.printJSON(identification)
        } else {
            console.printIdentification(identification, photos: files, threshold: threshold)
        }
    }

    /// The identifier `identify` uses. The one place that chooses an implementation, so other
    /// strategies (online, hybrid) slot in here.
    func makeIdentifier() throws -> OnDeviceIdentifier {
        let store = ModelStore(dataDirectory: .resolve())
        guard let url = model.map({ URL(fileURLWithPath: $0) }) ?? store.defaultModel() else {
            throw IdentifyCommandError.noModel(dataDirectory: store.dataDirectory.url.path)
        }
        let classifier = try Classifier(contentsOf: url, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
        return .live(classifier: classifier, threshold: threshold)
    }

    private func read(_ path: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw IdentifyCommandError.unreadablePhoto(path)
        }
    }

    private struct BatchItem: Encodable {
        var file: String
        var identification: Identification?
        var error: String?
    }

    private func runBatch(_ files: [String], identifier: OnDeviceIdentifier, enricher: CatalogEnricher, console: Console) async throws {
        let bar = ProgressBar(label: "Identifying")
        var items: [BatchItem] = []
        for (index, file) in files.enumerated() {
            bar.update(done: Double(index), total: Double(files.count), detail: "\(index)/\(files.count) \((file as NSString).lastPathComponent)", force: true)
            do {
                var identification = try await identifier.identify([try read(file)], top)
                enricher.enrich(&identification)
                items.append(BatchItem(file: file, identification: identification))
            } catch {
                items.append(BatchItem(file: file, error: "\(error)"))
            }
        }
        bar.update(done: Double(files.count), total: Double(files.count), detail: "\(files.count)/\(files.count)", force: true)
        bar.finish()
        if output.json {
            try console.printJSON(items)
        } else {
            let width = min(40, files.map { ($0 as NSString).lastPathComponent.count }.max() ?? 0)
            for item in items {
                let name = (item.file as NSString).lastPathComponent.padding(toLength: width, withPad: " ", startingAt: 0)
                if let best = item.identification?.best, let identification = item.identification {
                    console.print("\(name)  \(console.confidenceText(best.confidence))  \(console.style(best.scientificName, .bold))"
                        + (best.commonNames.first.map { " — \($0)" } ?? "") + (identification.uncertain ? console.style("  (uncertain)", .yellow) : ""))
                } else {
                    console.print("\(name)  " + console.style("error: \(item.error ?? "no result")", .red))
                }
            }
        }
        let failed = items.filter { $0.error != nil }.count
        if failed > 0 { throw IdentifyCommandError.someFailed(failed, of: items.count) }
    }
}
