import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantNetAPI
import PlantStore

/// `plantguide diagnose PHOTO…`: what is wrong with this plant? Pl@ntNet's disease service, on photos of the sick part.
struct DiagnoseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Ask Pl@ntNet's disease service what is wrong with a plant, from photos of the sick part.",
        discussion: """
            Up to \(PlantNetRequestRules.maximumImages) photos of one plant go to Pl@ntNet's disease service \
            (POST /v2/diseases/identify) in one request, which counts against the same daily quota as `identify`. \
            The answer lists the diseases and pests it finds likely, best first, each with its EPPO code (the \
            European and Mediterranean Plant Protection Organization's code, e.g. BOTRCI for grey mould), its \
            score and photos of it with their credits. Answers are cached for 7 days by photo; the service's disease \
            list (which names codes an answer leaves unnamed) for 30 days.

            The service knows a limited list of diseases: "no disease found" is an answer, not an error, and a low \
            score is a hint to compare, not a verdict. Photograph the affected part up close in daylight (the upper \
            and lower side of a leaf), one organ per photo: leaf, flower, fruit or bark, or auto to let Pl@ntNet \
            decide (the disease service takes no habit or other photos).

            Pl@ntNet needs a free API key from https://my.plantnet.org: set PLANTNET_API_KEY or run \
            `plantguide config set-api-key`.

            With --plant ID, what the collection knows about that plant follows the answer, as facts to check and \
            never as a diagnosis: waterings in the last 30 days against its schedule, overdue tasks, the last \
            repotting, and its spot's light against the guide's.

            With --plant ID --save, the answer and its photos are kept in that plant's history (`plantguide \
            collection show ID` lists them, exports carry them); --note adds your own words. When Pl@ntNet cannot be \
            reached (no connection, timed out, failing, or today's quota spent), the photos are kept all the same and \
            wait: `plantguide recheck` (or a running `plantguide serve`) sends them later and fills the answer in.

            Examples:
              plantguide diagnose spots.jpg
              plantguide diagnose spots.jpg --plant 3
              plantguide diagnose spots.jpg --plant 3 --save --note "after the cold week"
              plantguide diagnose upper.jpg lower.jpg --organ leaf --organ leaf
              plantguide diagnose fruit.jpg --organ fruit --lang fr --json
            """
    )

    @Argument(help: "Photos (JPEG, PNG, WebP, HEIC) of the sick part of one plant.")
    var photos: [String]

    @Option(name: .customLong("organ"), help: "Organ shown by each photo, in order: leaf, flower, fruit, bark or auto (the default).")
    var organs: [PlantNetOrgan] = []

    @Option(name: .customLong("lang"), help: "Language of the diseases' names, e.g. en, fr, de.")
    var language = LiveEnrichment.defaultLanguage

    @Option(help: "How many diseases to ask for (1 to 20).")
    var top = 5

    @Option(help: "The collection plant (id) the photos show: its care log's facts follow the answer.", transform: PlantID.init(parsing:))
    var plant: PlantID?

    @Flag(help: "Keep the answer and the photos in the plant's history (needs --plant).")
    var save = false

    @Option(help: "Your own words kept with the answer (with --save; up to \(NewHealthRecord.maximumNoteCharacters) characters).")
    var note: String?

    @Flag(help: "Print each request and answer (the API key redacted).")
    var verbose = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...PlantNetRequestRules.maximumImages).contains(photos.count) else {
            throw ValidationError(
                "Give 1 to \(PlantNetRequestRules.maximumImages) photos of one plant (got \(photos.count))."
            )
        }
        guard organs.count <= photos.count else {
            throw ValidationError("\(organs.count) --organ values for \(photos.count) photo(s): give at most one per photo.")
        }
        do throws(PlantNetError) {
            try PlantNetRequestRules.validateDiagnosis(organs: organs)
        } catch {
            guard case .invalidRequest(let reason) = error else { throw ValidationError("\(error)") }
            throw ValidationError(reason.prefix(1).uppercased() + reason.dropFirst())
        }
        guard (1...20).contains(top) else { throw ValidationError("--top must be between 1 and 20.") }
        if save, plant == nil { throw ValidationError("--save keeps the answer in a plant's history: name the plant with --plant ID.") }
        if note != nil, !save { throw ValidationError("--note is kept with the answer: add --save (and --plant ID).") }
        if let note, note.unicodeScalars.count > NewHealthRecord.maximumNoteCharacters {
            throw ValidationError("--note is at most \(NewHealthRecord.maximumNoteCharacters) characters.")
        }
        guard !language.isEmpty, language.count <= 16, language.allSatisfy({ $0.isLetter || $0 == "-" }) else {
            throw ValidationError("--lang takes a language code such as en, fr or pt-BR.")
        }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let setup = PlantNetSetup(context)
        let service: PlantNetService
        switch setup.service(console: console, verbose: verbose) {
        case .success(let made): service = made
        case .failure(let error):
            console.warn("error: \(error)")
            throw ExitCode(1)
        }
        // The plant is read first: a wrong id costs no request.
        var facts: (plant: Plant, facts: [CareFact])?
        var collection: CollectionEnvironment?
        if let plant {
            let environment = try CollectionEnvironment.load(context)
            collection = environment
            let details = try await environment.store.details(ofPlant: plant.value)
            let planner = try await environment.planner
            let schedule = try await planner.explainedSchedule(forPlant: plant.value, details: details)
            facts = (details.plant, CareFacts.of(details: details, schedule: schedule, today: planner.today))
        }
        var images: [PlantNetImage] = []
        var originals: [(data: Data, organ: String)] = []
        for (index, path) in photos.enumerated() {
            let data = try HybridIdentify.readPhoto(path)
            let organ = index < organs.count ? organs[index] : .auto
            if save { originals.append((data, organ.rawValue)) }
            do {
                images.append(try LivePlantNet.prepare(data, organ: organ))
            } catch {
                throw HybridIdentify.PhotoError(path: path, reason: "it could not be decoded (\(error))")
            }
        }
        let answer: DiagnosisAnswer
        do {
            answer = try await service.diagnose(
                images, options: DiagnosisOptions(language: language, resultCount: top, includeRelatedImages: true)
            )
        } catch {
            // Pl@ntNet cannot answer now: photos to keep wait in the plant's history for the re-check queue.
            if save, let plant, let collection, let facts, error.isWorthRetryingLater {
                let kept = try await collection.collection.keepDiagnosisForLater(
                    photos: originals, language: language, note: note, plantId: plant.value
                )
                try printWaiting(kept, reason: "\(error)", facts: facts, console: console)
                return
            }
            console.warn("error: \(error)")
            throw ExitCode(1)
        }
        let quota = await setup.quota(console: console).status()
        // Kept before anything is printed, so the output can say where it went (and a failure is not hidden by it).
        var kept: HealthRecord?
        if save, let plant, let collection, !answer.rejected {
            kept = try await collection.collection.keepDiagnosis(
                answer.diagnosis, photos: originals, note: note, plantId: plant.value
            )
        }
        if output.json {
            var printed = Output(answer, quota: quota)
            printed.plant = facts.map { Output.PlantRef(id: $0.plant.id, name: $0.plant.nickname ?? $0.plant.name) }
            printed.careFacts = facts?.facts
            printed.healthRecord = kept.map { Output.KeptRef(id: $0.id, uuid: $0.uuid) }
            try console.printJSON(printed)
        } else {
            Self.printText(answer, quota: quota, console: console)
            if let facts {
                console.print()
                console.print(console.style("Things to check about \(facts.plant.nickname ?? facts.plant.name)", .bold)
                    + console.style("  (from its care log; not a diagnosis)", .dim))
                for fact in facts.facts { console.print("  - \(fact.text)") }
            }
            if let kept, let facts {
                console.print()
                console.print("Kept in the history of \(facts.plant.nickname ?? facts.plant.name) "
                    + "(health record \(kept.id), \(kept.photos.count) photo\(kept.photos.count == 1 ? "" : "s")).")
            } else if save, answer.rejected {
                console.warn("Not kept: Pl@ntNet did not recognise a plant in the photo(s).")
            }
        }
        if save, answer.rejected { throw ExitCode(1) }
    }

    // MARK: - Output

    /// What a diagnosis kept for later prints: why Pl@ntNet was not asked now, the plant's facts, where the photos wait.
    private func printWaiting(
        _ kept: HealthRecord, reason: String, facts: (plant: Plant, facts: [CareFact]), console: Console
    ) throws {
        let name = facts.plant.nickname ?? facts.plant.name
        if output.json {
            try console.printJSON(WaitingOutput(
                reason: reason, language: language, plant: Output.PlantRef(id: facts.plant.id, name: name),
                careFacts: facts.facts, healthRecord: Output.KeptRef(id: kept.id, uuid: kept.uuid)
            ))
            return
        }
        console.warn(console.style("Pl@ntNet cannot diagnose now: \(reason)", .yellow))
        console.print()
        console.print(console.style("Things to check about \(name)", .bold) + console.style("  (from its care log; not a diagnosis)", .dim))
        for fact in facts.facts { console.print("  - \(fact.text)") }
        console.print()
        console.print("Kept in the history of \(name) (health record \(kept.id), \(counted(kept.photos.count, "photo"))), "
            + "waiting for Pl@ntNet: `plantguide recheck` sends it when Pl@ntNet can be reached "
            + "(`plantguide serve` does so on its own).")
    }

    /// The `--json` shape of a diagnosis kept for later.
    struct WaitingOutput: Encodable {
        /// Always true: the photos wait in the plant's history.
        var waiting = true
        /// Why Pl@ntNet was not asked now.
        var reason: String
        var language: String
        var plant: Output.PlantRef
        var careFacts: [CareFact]
        var healthRecord: Output.KeptRef
    }

    /// The `--json` shape.
    struct Output: Encodable {
        var source: IdentificationSource
        var model: String
        var language: String
        /// Whether Pl@ntNet refused the photos as showing no plant.
        var rejected: Bool
        /// Whether the best candidate scores at least 70 %.
        var confident: Bool
        var candidates: [DiseaseCandidate]
        var remainingRequests: Int?
        var quotaLevel: QuotaLevel
        var milliseconds: Double?
        /// What to do when nothing scores well (empty when the best candidate does).
        var nextSteps: [String]
        /// With `--plant`: the plant and its care log's facts (not a diagnosis).
        var plant: PlantRef?
        var careFacts: [CareFact]?
        /// With `--save`: the health record the answer was kept as.
        var healthRecord: KeptRef?

        struct PlantRef: Encodable {
            var id: Int64
            var name: String
        }

        struct KeptRef: Encodable {
            var id: Int64
            var uuid: String
        }

        init(_ answer: DiagnosisAnswer, quota: QuotaStatus) {
            source = answer.diagnosis.source
            model = answer.diagnosis.model
            language = answer.diagnosis.language
            rejected = answer.rejected
            confident = answer.diagnosis.isConfident
            candidates = answer.diagnosis.candidates
            remainingRequests = answer.remainingRequests ?? quota.remaining
            quotaLevel = quota.level
            milliseconds = answer.diagnosis.milliseconds
            nextSteps = DiagnosisAdvice.nextSteps(for: answer)
        }
    }

    static func printText(_ answer: DiagnosisAnswer, quota: QuotaStatus, console: Console) {
        let diagnosis = answer.diagnosis
        let origin = diagnosis.source == .cache ? "the cache (asked within the last 7 days)" : diagnosis.model
        if answer.rejected {
            console.print(console.style("Pl@ntNet did not recognise a plant in the photo(s).", .yellow))
        } else if diagnosis.candidates.isEmpty {
            console.print(console.style("No disease found that Pl@ntNet's disease service knows.", .bold))
        } else {
            console.print(console.style("Possible problems", .bold) + console.style("  (from \(origin))", .dim))
            for candidate in diagnosis.candidates {
                let name = candidate.name.map { console.style($0, .bold) + " (\(candidate.eppoCode))" }
                    ?? console.style(candidate.eppoCode, .bold)
                let unknown = candidate.inDiseaseList == false ? console.style("  not in Pl@ntNet's disease list", .dim) : ""
                console.print("\(candidate.rank). \(console.confidenceText(candidate.score))  \(name)\(unknown)")
                for image in candidate.referenceImages.prefix(2) {
                    let credit = image.citation ?? image.credit
                    console.print(console.style("     photo: \(image.url)" + (credit.isEmpty ? "" : "  \(credit)"), .dim))
                }
            }
        }
        let steps = DiagnosisAdvice.nextSteps(for: answer)
        if !steps.isEmpty {
            console.print()
            console.print(console.style("What to do next", .bold))
            for step in steps { console.print("  - \(step)") }
        }
        if let remaining = answer.remainingRequests ?? quota.remaining, diagnosis.source != .cache {
            console.print(console.style("Pl@ntNet requests left today: \(remaining)", .dim))
        }
        if quota.level.isWarning { console.warn(console.style(QuotaText.warning(quota), .yellow)) }
    }
}

extension DiagnosisAdvice {
    /// The steps in the command line's words.
    static func nextSteps(for answer: DiagnosisAnswer) -> [String] {
        nextSteps(for: answer, careHint: "check the plant's care (`plantguide care due`, `plantguide care schedule ID`)")
    }
}
