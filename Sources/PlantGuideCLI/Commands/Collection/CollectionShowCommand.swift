import Foundation
import ArgumentParser
import PlantGuideCore
import PlantStore

struct CollectionShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one plant: care profile, schedule, photos, care log, identifications and kept diagnoses.",
        discussion: """
            Examples:
              plantguide collection show 3
              plantguide collection show 3 --json
            """
    )

    @Argument(help: "The plant's id (see `collection list`).", transform: PlantID.init(parsing:))
    var id: PlantID

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let plantId = id.value
        let details = try await environment.store.details(ofPlant: plantId)
        let planner = try await environment.planner
        let schedule = try await planner.explainedSchedule(forPlant: plantId, details: details)
        let rechecks = try await environment.store.rechecks(ofIdentifications: details.identifications.map(\.id))
        let suggestions = try await environment.store.suggestions(plantId: plantId, includeResolved: false)
        if output.json {
            try console.printJSON(ShowJSON(
                plant: PlantJSON(plant: details.plant), careProfile: details.profile, schedule: schedule,
                photos: details.photos.map { PhotoJSON(photo: $0, library: environment.collection.photos) },
                events: details.events,
                identifications: details.identifications.map { IdentificationJSON(filed: $0, recheck: rechecks[$0.id]) },
                suggestions: suggestions, healthRecords: details.healthRecords
            ))
            return
        }
        console.print(console.plantLine(details.plant))
        for suggestion in suggestions {
            console.print(console.style("  \(suggestion.headline). `plantguide recheck accept \(suggestion.id)` takes it, "
                + "`plantguide recheck dismiss \(suggestion.id)` keeps \(details.plant.species ?? details.plant.name).", .yellow))
        }
        if let notes = details.plant.notes { console.print("  Notes: \(notes)") }
        if let acquired = details.plant.acquiredOn { console.print("  Acquired \(acquired)") }
        if let profile = details.profile {
            console.print(console.style("Care", .cyan) + console.style("  (\(profile.basis))", .dim))
            console.print("  Light \(profile.light.rawValue); humidity \(profile.humidity.rawValue); \(profile.minTemperature)–\(profile.maxTemperature) °C")
            console.print("  Water every \(counted(profile.waterGrowingDays, "day")) in the growing season, \(profile.waterWinterDays) in winter")
            console.print("  Pets: \(profile.petToxicity) (\(profile.toxicitySource))")
        }
        console.print(console.style("Schedule", .cyan))
        for task in schedule { console.print(console.scheduleLine(task, today: planner.today)) }
        if !details.photos.isEmpty {
            console.print(console.style("Photos", .cyan))
            for photo in details.photos { console.print("  \(environment.collection.photos.url(of: photo).path)") }
        }
        if !details.events.isEmpty {
            console.print(console.style("Care log", .cyan))
            for event in details.events.prefix(10) {
                console.print("  \(event.day)  \(event.task.pastTense)" + (event.note.map { " — \($0)" } ?? ""))
            }
        }
        if !details.identifications.isEmpty {
            console.print(console.style("Identifications", .cyan))
            for filed in details.identifications {
                let best = filed.identification.best.map { "\($0.scientificName) \(Int(($0.confidence * 100).rounded())) %" } ?? "no match"
                var line = "  \(filed.identification.date.formatted(.iso8601))  \(filed.identification.source.rawValue): \(best)"
                if let recheckOf = filed.recheckOf { line += " (re-check of \(recheckOf))" }
                if let item = rechecks[filed.id], item.state == .queued { line += " — waiting for a Pl@ntNet re-check" }
                console.print(line)
            }
        }
        if !details.healthRecords.isEmpty {
            console.print(console.style("Health", .cyan))
            for record in details.healthRecords {
                var line = "  \(record.id). \(record.recordedAt.formatted(.iso8601))  \(record.summary)"
                    + console.style("  (\(record.photos.count) photo\(record.photos.count == 1 ? "" : "s"))", .dim)
                if let note = record.note { line += " — \(note)" }
                console.print(line)
            }
        }
    }

    private struct ShowJSON: Encodable {
        var plant: PlantJSON
        var careProfile: CareProfile?
        var schedule: [ScheduledTask]
        var photos: [PhotoJSON]
        var events: [CareEvent]
        var identifications: [IdentificationJSON]
        var suggestions: [SpeciesSuggestion]
        /// Diagnoses kept in the plant's history (`diagnose --plant ID --save`), newest first.
        var healthRecords: [HealthRecord]
    }
}

/// A filed identification as `collection show --json` prints it: the record's fields, `recheckOf` when it is a
/// re-check's or re-scoring's answer, and `recheck` (`null` when it was never queued) with the queue item's state.
struct IdentificationJSON: Encodable {
    var filed: FiledIdentification
    var recheck: RecheckItem?

    private enum Keys: String, CodingKey { case recheck }

    func encode(to encoder: any Encoder) throws {
        try filed.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(recheck.map(RecheckJSON.init), forKey: .recheck)
    }

    /// `{state, reason, queuedAt, attempts, lastError, resultId, finishedAt, expiresAt}`.
    private struct RecheckJSON: Encodable {
        var state: RecheckState
        var reason: RecheckReason
        var queuedAt: Date
        var attempts: Int
        var lastError: String?
        var resultId: Int64?
        var finishedAt: Date?
        var expiresAt: Date?

        init(_ item: RecheckItem) {
            state = item.state
            reason = item.reason
            queuedAt = item.queuedAt
            attempts = item.attempts
            lastError = item.lastError
            resultId = item.resultId
            finishedAt = item.finishedAt
            expiresAt = item.expiresAt
        }
    }
}

/// A stored photo with the paths of its files.
struct PhotoJSON: Encodable {
    var sha256: String
    var mediaType: String
    var byteCount: Int
    var width: Int?
    var height: Int?
    var path: String
    var thumbnailPath: String?

    init(photo: StoredPhoto, library: PhotoLibrary) {
        sha256 = photo.sha256
        mediaType = photo.mediaType
        byteCount = photo.byteCount
        width = photo.width
        height = photo.height
        path = library.url(of: photo).path
        thumbnailPath = library.thumbnailURL(of: photo)?.path
    }
}
