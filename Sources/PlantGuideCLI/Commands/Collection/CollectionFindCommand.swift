import ArgumentParser
import Foundation
import PlantClassifier
import PlantGuideCore
import PlantStore

/// `plantguide collection find PHOTO`: which of my plants is this?
struct CollectionFindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Answer \"which of my plants is this?\" from a photo, offline.",
        discussion: """
            The photo is compared with every indexed photo of your plants (cosine similarity of the \
            on-device model's embeddings). Plants at or above PLANTGUIDE_MATCH_THRESHOLD (default 0.85) \
            are matches; species you confirmed are offered from PLANTGUIDE_SPECIES_MATCH_THRESHOLD (default \
            0.8). The defaults are a starting point: calibrate them on your own photos with \
            scripts/calibrate-similarity (see docs/collection-recognition.md). Photos added before a model \
            was installed are indexed by `plantguide collection reindex`.

            Examples:
              plantguide collection find new-leaf.jpg
              PLANTGUIDE_MATCH_THRESHOLD=0.9 plantguide collection find spike.jpg --json
            """
    )

    @Argument(help: "A photo (JPEG, PNG, WebP, HEIC).")
    var photo: String

    @Option(help: "On-device model file to use instead of the installed default.")
    var model: String?

    @OptionGroup var output: OutputOptions

    private struct Report: Encodable {
        var model: EmbeddingModel
        var collectionMatches: [CollectionMatch]
        var candidates: [Candidate]
        /// The closest plants whatever their similarity, to judge how far off the threshold a photo is.
        var nearest: [CollectionMatch]
        var thresholds: Thresholds
        var coverage: EmbeddingCoverage
    }

    private struct Candidate: Encodable {
        var scientificName: String
        var similarity: Double
        var source: CandidateSource
    }

    private struct Thresholds: Encodable {
        var plant: Double
        var species: Double
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let settings = try CollectionEnvironment.recognitionSettings()
        let data = try readInputFile(photo)
        let classifier = try Self.loadClassifier(model)
        let environment = try CollectionEnvironment.load(context)
        let embedding = try classifier.embedding(photo: data)
        let model = classifier.embeddingModel
        let recognition = try await environment.recognizer(settings: settings, model: model).recognize([embedding], model)
        var everything = settings
        everything.plantThreshold = -1
        let nearest = try await environment.recognizer(settings: everything, model: model).recognize([embedding], model).matches
        let coverage = try await environment.store.embeddingCoverage(model: classifier.embeddingModel)
        let report = Report(
            model: classifier.embeddingModel, collectionMatches: recognition.matches,
            candidates: recognition.candidates.map { Candidate(scientificName: $0.scientificName, similarity: $0.confidence, source: .collection) },
            nearest: nearest, thresholds: Thresholds(plant: settings.plantThreshold, species: settings.speciesThreshold),
            coverage: coverage
        )
        if output.json {
            try console.printJSON(report)
            return
        }
        if recognition.matches.isEmpty {
            let closest = nearest.first.map { String(format: " (closest: %@, %.2f)", Self.name(of: $0), $0.similarity) } ?? ""
            console.print("None of your plants matches this photo above \(settings.plantThreshold)\(closest).")
        }
        for match in recognition.matches {
            let note = await environment.wateringNote(plantId: match.plantId)
            console.print(console.matchLine(match, care: note))
        }
        for candidate in recognition.candidates {
            console.print(String(format: "Species from your confirmed photos: %@ (%.2f)", candidate.scientificName, candidate.confidence))
        }
        if coverage.missing + coverage.stale > 0 {
            console.warn(console.style(
                "note: \(counted(coverage.missing + coverage.stale, "photo")) of your plants are not indexed for "
                    + "\(classifier.embeddingModel.name): run `plantguide collection reindex`.", .yellow
            ))
        }
    }

    static func name(of match: CollectionMatch) -> String {
        match.nickname.map { "\($0) (#\(match.plantId))" } ?? "\(match.name) (#\(match.plantId))"
    }

    /// The classifier of `path`, else of the installed default model; a clear error when there is none.
    static func loadClassifier(_ path: String?) throws -> Classifier {
        let store = ModelStore(dataDirectory: .resolve())
        guard let url = path.map({ URL(fileURLWithPath: $0) }) ?? store.defaultModel() else {
            throw ValidationError("No on-device model is installed: run `plantguide model install` (or give --model FILE).")
        }
        return try Classifier(contentsOf: url)
    }
}

extension Console {
    /// `Is this Spike? Dracaena trifasciata, Bedroom (watering due in 2 days) — plant #3, similarity 0.94 (photo 9f2c1a2b3c4d)`
    func matchLine(_ match: CollectionMatch, care: String? = nil) -> String {
        let details = [match.scientificName ?? (match.nickname == nil ? nil : match.name), match.room].compactMap { $0 }
        return "Is this " + style(match.nickname ?? match.name, .bold) + "?"
            + (details.isEmpty ? "" : " " + details.joined(separator: ", "))
            + (care.map { " (\($0))" } ?? "")
            + style(String(format: " — plant #%lld, similarity %.2f (photo %@)", match.plantId, match.similarity,
                           String(match.photoSHA256.prefix(12))), .dim)
    }
}

extension CollectionEnvironment {
    /// When a plant's watering is due, as the "Is this …?" line says it: "watering due today", "watering due in
    /// 2 days", "watering overdue by 3 days"; `nil` when it is not scheduled or cannot be read.
    func wateringNote(plantId: Int64) async -> String? {
        guard let planner = try? await planner,
              let task = try? await planner.schedule(forPlant: plantId).first(where: { $0.task == .water }), let due = task.dueOn
        else { return nil }
        let days = due.days(since: planner.today)
        switch days {
        case ..<0: return "watering overdue by \(counted(-days, "day"))"
        case 0: return "watering due today"
        case 1: return "watering due tomorrow"
        default: return "watering due in \(counted(days, "day"))"
        }
    }
}
