import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

/// `plantguide recheck list`: the queue and the suggestions waiting for the owner.
struct RecheckListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the re-check queue, the diagnoses waiting for Pl@ntNet and the species suggestions waiting for you.",
        discussion: """
            --json prints {summary, queue, diagnoses, suggestions}; diagnoses are the health records kept while \
            Pl@ntNet could not be reached (`plantguide diagnose --plant ID --save`), which `plantguide recheck` sends.

            Examples:
              plantguide recheck list
              plantguide recheck list --all --json
            """
    )

    @Flag(help: "Include finished items and settled suggestions.")
    var all = false

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let store = environment.store
        let queue = all ? try await store.rechecks(limit: nil) : try await store.queuedRechecks(now: environment.now(), limit: nil)
        let suggestions = try await store.suggestions(plantId: nil, includeResolved: all)
        let diagnoses = try await store.waitingHealthRecords()
        if output.json {
            try console.printJSON(ListJSON(
                summary: try await store.recheckSummary(), queue: queue, diagnoses: diagnoses, suggestions: suggestions
            ))
            return
        }
        console.print(console.style("Queue", .cyan))
        if queue.isEmpty { console.print("  Nothing waiting for a re-check.") }
        for item in queue {
            let subject = item.plantId.map { "plant \($0)" } ?? "identification \(item.identificationId) (not saved)"
            var line = "  \(item.queuedAt.formatted(.iso8601))  \(subject), \(counted(item.photos.count, "photo")): \(item.state.rawValue)"
            line += item.state == .queued ? ", because \(item.reason.label)" : ""
            if item.attempts > 0, item.state == .queued { line += ", \(counted(item.attempts, "attempt"))" }
            console.print(line)
            if let error = item.lastError, item.state != .done { console.print(console.style("    last error: \(error)", .dim)) }
        }
        console.print(console.style("Diagnoses waiting for Pl@ntNet", .cyan))
        if diagnoses.isEmpty { console.print("  None.") }
        for record in diagnoses {
            let plant = try? await store.plant(id: record.plantId)
            var line = "  \(record.recordedAt.formatted(.iso8601))  \(plant?.displayName ?? "plant \(record.plantId)") "
                + "(plant \(record.plantId), health record \(record.id)), \(counted(record.photos.count, "photo"))"
            if let attempts = record.waiting?.attempts, attempts > 0 { line += ", \(counted(attempts, "attempt"))" }
            console.print(line)
            if let error = record.waiting?.lastError { console.print(console.style("    last error: \(error)", .dim)) }
        }
        console.print(console.style("Suggestions", .cyan))
        if suggestions.isEmpty { console.print("  None.") }
        for suggestion in suggestions {
            let plant = try? await store.plant(id: suggestion.plantId)
            let name = plant.map { $0.displayName } ?? "plant \(suggestion.plantId)"
            var line = "  \(suggestion.id). \(name) (plant \(suggestion.plantId)): \(suggestion.headline)"
            if let current = suggestion.currentSpecies { line += "; it is filed as \(current)" }
            if let resolution = suggestion.resolution { line += " [\(resolution.rawValue)]" }
            console.print(line)
            if suggestion.kind == .rescore, let previous = suggestion.previousSpecies {
                console.print(console.style("     before: \(previous) with \(suggestion.previousModel ?? "an unknown model")", .dim))
            }
        }
        if suggestions.contains(where: { $0.resolution == nil }) {
            console.print("Accept with `plantguide recheck accept ID`, or keep the species with `plantguide recheck dismiss ID`.")
        }
    }

    private struct ListJSON: Encodable {
        var summary: RecheckSummary
        var queue: [RecheckItem]
        var diagnoses: [HealthRecord]
        var suggestions: [SpeciesSuggestion]
    }
}

/// `plantguide recheck accept ID`.
struct RecheckAcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a species suggestion: the plant takes the suggested species and its care profile.",
        discussion: "Example:\n  plantguide recheck accept 3"
    )

    @Argument(help: "The suggestion's id (see `plantguide recheck list`).")
    var id: Int64

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        try await SuggestionOutput.show(try environment.collection.acceptSuggestion(id), environment: environment, json: output.json)
    }
}

/// `plantguide recheck dismiss ID`.
struct RecheckDismissCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss",
        abstract: "Dismiss a species suggestion: the plant keeps its species.",
        discussion: "Example:\n  plantguide recheck dismiss 3"
    )

    @Argument(help: "The suggestion's id (see `plantguide recheck list`).")
    var id: Int64

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        try await SuggestionOutput.show(try environment.collection.dismissSuggestion(id), environment: environment, json: output.json)
    }
}

private enum SuggestionOutput {
    static func show(_ suggestion: SpeciesSuggestion, environment: CollectionEnvironment, json: Bool) async throws {
        let console = Console()
        let plant = try await environment.store.plant(id: suggestion.plantId)
        if json {
            try console.printJSON(Settled(suggestion: suggestion, plant: plant.map(PlantJSON.init)))
            return
        }
        let name = plant?.nickname ?? "Plant \(suggestion.plantId)"
        switch suggestion.resolution {
        case .accepted?:
            let before = suggestion.currentSpecies.map { " (was \($0))" } ?? ""
            console.print("\(name)\(before) is now \(plant?.species ?? suggestion.suggestedSpecies), with its care profile.")
        default: console.print("\(name) keeps its species\(plant?.species.map { " (\($0))" } ?? "").")
        }
    }

    private struct Settled: Encodable {
        var suggestion: SpeciesSuggestion
        var plant: PlantJSON?
    }
}
