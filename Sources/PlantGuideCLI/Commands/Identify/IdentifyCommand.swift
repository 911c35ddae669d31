import ArgumentParser
import Foundation
import PlantIdentification

/// `plantguide identify PHOTO…`: what plant is this? On the device, with Pl@ntNet, or both.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Identify a plant from 1–5 photos of it.",
        discussion: """
            Strategies: on-device (offline), api (Pl@ntNet only), on-device-first (the default: Pl@ntNet \
            only when the device is unsure) and parallel (both at once, Pl@ntNet preferred). When \
            Pl@ntNet cannot be reached or its daily quota is used up, the device answers instead; \
            with --strategy api that is an error. Pl@ntNet answers are cached for 7 days by photo.

            Pl@ntNet needs a free API key from https://my.plantnet.org: set PLANTNET_API_KEY or run \
            `plantguide config set-api-key`. PLANTGUIDE_PLANTNET_URL points at another server.

            Examples:
              plantguide identify leaf.jpg
              plantguide identify leaf.jpg flower.jpg --organ leaf --organ flower --strategy api
              plantguide identify plant.heic --strategy parallel --lang fr --json
            """
    )

    @Argument(help: "Photos of one plant (JPEG, PNG, WebP or HEIC).")
    var photos: [String]

    @OptionGroup var hybrid: HybridIdentify.Options
import PlantCatalog
import PlantClassifier
import PlantGuideCore
        abstract: "Identify a plant from one or more photos.",
            Several photos of the same plant are combined (their probabilities averaged). A folder, \
            more than 5 files, or --batch identifies each photo on its own, with a progress bar.
            Confidence bars are green above 70 %, yellow from 40 to 70 %, red below 40 %; below \
            --threshold the answer is marked uncertain.
              plantguide identify leaf.jpg flower.jpg --top 5
              plantguide identify ~/Pictures/garden --json
              plantguide identify photo.heic --model ~/models/resnet18-plantnet300k.pgmodel
    @Argument(help: "Photos (JPEG, PNG, WebP, HEIC) or folders of photos.")
    @Option(help: "Model file to use instead of the installed default.")
    var model: String?
    @Option(help: "How many species to show.")
    var top = 10
    @Option(help: "Confidence (0–1) below which the answer is marked uncertain.")
    var threshold = 0.7
    @Flag(help: "Identify each photo separately instead of combining them.")
    var batch = false
    @Option(help: "CPU threads for the model (default: all cores).")
    var threads: Int?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        try hybrid.validate(photoCount: photos.count)
        guard top > 0 else { throw ValidationError("--top must be at least 1.") }
        guard (0...1).contains(threshold) else { throw ValidationError("--threshold must be between 0 and 1, e.g. 0.7.") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
    }

    func run() async throws {
        let console = Console()
        do {
            let (result, quota) = try await HybridIdentify.run(
                photoPaths: photos, options: hybrid, onDevice: nil, console: console
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
        let identifier = try makeIdentifier()
        let (files, sawFolder) = try PhotoFiles.expand(photos)
        let enricher = CatalogEnricher(catalog: PlantCatalog())
        if batch || sawFolder || files.count > 5 {
            try await runBatch(files, identifier: identifier, enricher: enricher, console: console)
            return
        let data = try files.map(read)
        var identification = try await identifier.identify(data, top)
        enricher.enrich(&identification)
        if output.json {
            try console.printJSON(identification)
        } else {
            console.printIdentification(identification, photos: files, threshold: threshold)

    /// The identifier `identify` uses. The one place that chooses an implementation, so other
    /// strategies (online, hybrid) slot in here.
    func makeIdentifier() throws -> OnDeviceIdentifier {
        let store = ModelStore(dataDirectory: .resolve())
        guard let url = model.map({ URL(fileURLWithPath: $0) }) ?? store.defaultModel() else {
            throw IdentifyCommandError.noModel(dataDirectory: store.dataDirectory.url.path)
        let classifier = try Classifier(contentsOf: url, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
        return .live(classifier: classifier, threshold: threshold)

    private func read(_ path: String) throws -> Data {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw IdentifyCommandError.unreadablePhoto(path)

    private struct BatchItem: Encodable {
        var file: String
        var identification: Identification?
        var error: String?

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
        let failed = items.filter { $0.error != nil }.count
        if failed > 0 { throw IdentifyCommandError.someFailed(failed, of: items.count) }
}
