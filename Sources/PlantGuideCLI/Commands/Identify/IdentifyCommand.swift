import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore
import PlantIdentification
import PlantNetAPI
import PlantStore

/// `plantguide identify PHOTO…`: what plant is this? On the device, with Pl@ntNet, or both.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Identify a plant from photos of it, on the device and/or with Pl@ntNet.",
        discussion: """
            Up to \(PhotoUploadRules.maximumPhotos) photos of the same plant are combined into one answer. A folder, more \
            than \(PhotoUploadRules.maximumPhotos) files, \
            or --batch identifies each photo on its own, with a progress bar.

            Strategies: on-device (offline), api (Pl@ntNet only), on-device-first (the default: Pl@ntNet \
            only when the device is unsure) and parallel (both at once, Pl@ntNet preferred). When \
            Pl@ntNet cannot be reached or its daily quota is used up, the device answers instead; \
            with --strategy api that is an error. Pl@ntNet answers are cached for 7 days by photo. The \
            on-device model is given 10 s (--on-device-timeout); if it takes longer it is given up and \
            Pl@ntNet answers instead, as when the device is unsure.

            The on-device model is installed with `plantguide model install`. Pl@ntNet needs a free API \
            key from https://my.plantnet.org: set PLANTNET_API_KEY or run `plantguide config set-api-key`.

            Confidence bars are green above 70 %, yellow from 40 to 70 %, red below 40 %; below \
            --threshold the answer is marked uncertain.

            With a collection, the on-device answer also says which of your plants the photo most likely \
            shows ("Is this Spike?", JSON `collectionMatches`), and offers species you confirmed from their \
            photos (marked "from your confirmed photos", JSON `"source": "collection"`, confidence = \
            similarity). Such a species counts as a confident answer, so on-device-first then asks no \
            Pl@ntNet. Thresholds: PLANTGUIDE_MATCH_THRESHOLD (0.85) and PLANTGUIDE_SPECIES_MATCH_THRESHOLD \
            (0.8); see `plantguide collection find --help`.

            Examples:
              plantguide identify leaf.jpg
              plantguide identify leaf.jpg flower.jpg --organ leaf --organ flower --strategy parallel
              plantguide identify ~/Pictures/garden --strategy on-device --json
              plantguide identify plant.heic --model ~/models/resnet18.pgmodel --top 5
              plantguide identify fern.jpg --save --create-plant --room Bathroom
              plantguide identify leaf.jpg --save --plant 3
            """
    )

    @Argument(help: "Photos (JPEG, PNG, WebP, HEIC) of one plant, or folders of photos.")
    var photos: [String]

    @Option(help: "On-device model file to use instead of the installed default.")
    var model: String?

    @Option(help: "How many species to show.")
    var top = 10

    @Flag(help: "Identify each photo separately instead of combining them.")
    var batch = false

    @Option(help: "CPU threads for the on-device model (default: all cores).")
    var threads: Int?

    @Flag(help: "File the answer, with the first photo, in the collection's identification history.")
    var save = false

    @Option(help: "With --save: the collection plant (id) the answer belongs to.", transform: PlantID.init(parsing:))
    var plant: PlantID?

    @Flag(help: "With --save: add the identified species to the collection as a new plant.")
    var createPlant = false

    @Option(help: "With --create-plant: the new plant's room.")
    var room: String?

    @OptionGroup var hybrid: HybridIdentify.Options

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1.") }
        if !save, plant != nil || createPlant || room != nil {
            throw ValidationError("--plant, --create-plant and --room go with --save.")
        }
        if plant != nil, createPlant { throw ValidationError("Give --plant ID or --create-plant, not both.") }
        if room != nil, !createPlant { throw ValidationError("--room applies to a new plant: add --create-plant.") }
        if save, batch { throw ValidationError("--save files one plant's answer; it does not work with --batch.") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
        guard hybrid.onDeviceTimeout > 0, hybrid.onDeviceTimeout <= 3600 else {
            throw ValidationError("--on-device-timeout must be more than 0 and at most 3600 seconds.")
        }
        // Several photos of one plant go to Pl@ntNet in one request, so its rules apply then.
        if !batch, photos.count <= PlantNetRequestRules.maximumImages {
            try hybrid.validate(photoCount: photos.count)
        } else if !hybrid.organs.isEmpty {
            throw ValidationError("--organ applies to up to \(PlantNetRequestRules.maximumImages) photos of one plant, not to a batch.")
        }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let (files, sawFolder) = try PhotoFiles.expand(photos)
        let store = ModelStore(dataDirectory: context.directory)
        let setup = PlantNetSetup(context)
        let classifier = try loadClassifier(store: store)
        var onDevice: OnDeviceIdentifier?
        if let classifier { onDevice = try await onDeviceIdentifier(classifier, context: context) }
        let identifier = HybridIdentify.makeIdentifier(
            options: hybrid, onDevice: onDevice,
            onDeviceMissingReason: IdentifyCommandError.noModelAdvice(
                dataDirectory: store.dataDirectory.url.path,
                apiKeyConfigured: setup.keyStore.key(environment: setup.environment) != nil
            ),
            top: top, console: console, setup: setup
        )
        let runLog = IdentificationRunLog(console: console, context: context)
        if batch || sawFolder || files.count > PlantNetRequestRules.maximumImages {
            try await runBatch(files, identifier: identifier, quota: setup.quota(console: console), runLog: runLog, console: console)
            return
        }
        do {
            let result = try await HybridIdentify.run(photoPaths: files, options: hybrid, identifier: identifier)
            await runLog.record(result)
            let quota = await setup.quota(console: console).status()
            // An answer the device gave in Pl@ntNet's place waits for a re-check, saved or not (when Pl@ntNet is set up).
            let recheck = identifier.online == nil ? nil : result.recheckReason
            var filed: FiledIdentification?
            if save || recheck != nil {
                filed = try await file(
                    result.preferredWithTimings, photos: files, save: save, recheck: recheck, console: console,
                    embedder: classifier.map { PhotoEmbedder.live(classifier: $0) }, context: context
                )
            }
            if output.json {
                // The quota is Pl@ntNet's: without it set up, the answer says null, as the server's does.
                var answer = IdentifyAnswer(result, quota: identifier.online == nil ? nil : quota)
                answer.organs = hybrid.answerOrgans(photoCount: files.count)
                answer.saved = filed.flatMap { save ? IdentifyAnswer.Saved(identificationId: $0.id, plantId: $0.plantId) : nil }
                answer.recheck = filed.flatMap { filed in
                    recheck.map { IdentifyAnswer.Recheck(reason: $0, identificationId: filed.id) }
                }
                try console.printJSON(answer)
            } else {
                // What is due for a recognised plant ("watering due in 2 days"), read only when one was recognised.
                let collection = (result.collectionMatches ?? []).isEmpty ? nil : try? CollectionEnvironment.load(context)
                var notes: [Int64: String] = [:]
                for match in result.collectionMatches ?? [] {
                    notes[match.plantId] = await collection?.wateringNote(plantId: match.plantId)
                }
                HybridIdentify.printText(
                    result, quota: quota, photos: files, threshold: hybrid.threshold, top: top, console: console,
                    care: { plant in notes[plant] }
                )
                if let filed, save {
                    console.print("Saved as identification \(filed.id)" + (filed.plantId.map { " of plant \($0)" } ?? "") + ".")
                }
                if filed != nil, let recheck {
                    console.print(console.style(
                        "Queued for a Pl@ntNet re-check (answered on the device because \(recheck.label)); "
                            + "`plantguide recheck` sends it when Pl@ntNet can be reached.", .dim
                    ))
                }
            }
        } catch let error as HybridError {
            console.warn("error: \(error)")
            throw ExitCode(1)
        }
    }

    /// Files the preferred answer in the collection: with `save`, under the plant and with its first photo (stored once,
    /// without metadata, and indexed with `embedder` for recognition); with `recheck`, queued with all its photos for
    /// Pl@ntNet. A queue that cannot be written only warns when the answer was not to be saved: the answer itself is
    /// already printed.
    private func file(
        _ identification: Identification, photos paths: [String], save: Bool, recheck: RecheckReason?, console: Console,
        embedder: PhotoEmbedder?, context: CommandContext
    ) async throws -> FiledIdentification? {
        do {
            let environment = try CollectionEnvironment.load(context, embedder: embedder)
            var photos: [(data: Data, organ: String)] = []
            for (index, path) in paths.enumerated() {
                let organ = index < hybrid.organs.count ? hybrid.organs[index] : .auto
                photos.append((try HybridIdentify.readPhoto(path), organ.rawValue))
            }
            return try await environment.collection.fileIdentification(
                identification, photo: save ? photos.first?.data : nil, plantId: save ? plant?.value : nil, createPlant: save && createPlant,
                room: room, recheck: recheck.map { (reason: $0, photos: photos) }
            )
        } catch where !save {
            console.warn("warning: the answer could not be queued for a Pl@ntNet re-check: \(error)")
            return nil
        }
    }

    /// The on-device classifier: `--model`, else the installed default, else none (the hybrid then
    /// explains how to install one when a strategy needs it).
    private func loadClassifier(store: ModelStore) throws -> Classifier? {
        guard let url = model.map({ URL(fileURLWithPath: $0) }) ?? store.defaultModel() else { return nil }
        return try Classifier(contentsOf: url, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The on-device identifier, matching against the collection when there is one (an identification never creates
    /// the collection).
    private func onDeviceIdentifier(_ classifier: Classifier, context: CommandContext) async throws -> OnDeviceIdentifier {
        let settings = try CollectionEnvironment.recognitionSettings()
        var recognizer: CollectionRecognizer?
        // A collection that cannot be read costs the recognition of your own plants, not the identification.
        if context.hasCollection {
            do {
                recognizer = try await CollectionEnvironment.load(context).recognizer(settings: settings, model: classifier.embeddingModel)
            } catch {
                Console().warn("warning: your own plants are not recognised in this answer: \(error)")
            }
        }
        return OnDeviceIdentifier.live(classifier: classifier, threshold: hybrid.threshold, collection: recognizer)
            .limited(to: hybrid.onDeviceLimit)
    }

    private struct BatchItem: Encodable {
        var file: String
        var identification: IdentifyAnswer?
        var error: String?
    }

    private func runBatch(
        _ files: [String], identifier: HybridIdentifier, quota: any QuotaLedger, runLog: IdentificationRunLog, console: Console
    ) async throws {
        let bar = ProgressBar(label: "Identifying")
        var items: [BatchItem] = []
        for (index, file) in files.enumerated() {
            let name = (file as NSString).lastPathComponent
            bar.update(done: Double(index), total: Double(files.count), detail: "\(index)/\(files.count) \(name)", force: true)
            do {
                let result = try await HybridIdentify.run(photoPaths: [file], options: hybrid, identifier: identifier)
                await runLog.record(result)
                var answer = IdentifyAnswer(result, quota: identifier.online == nil ? nil : await quota.status())
                answer.organs = hybrid.answerOrgans(photoCount: 1)
                items.append(BatchItem(file: file, identification: answer))
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
                if let answer = item.identification, let best = answer.predictions.first {
                    console.print("\(name)  \(console.confidenceText(best.confidence))  \(console.style(best.scientificName, .bold))"
                        + (best.commonNames.first.map { " — \($0)" } ?? "")
                        + (answer.uncertain ? console.style("  (uncertain)", .yellow) : ""))
                } else {
                    console.print("\(name)  " + console.style("error: \(item.error ?? "no result")", .red))
                }
            }
        }
        let failed = items.filter { $0.error != nil }.count
        if failed > 0 { throw IdentifyCommandError.someFailed(failed, of: items.count) }
    }
}
