import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantIdentification
import PlantNetAPI
import PlantStore

/// `plantguide recheck [--dry-run] [--limit N] [--reserve N] [--json]`: drains the re-check queue.
struct RecheckRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send the re-check queue to Pl@ntNet (the default of `plantguide recheck`).",
        discussion: """
            Diagnoses kept while Pl@ntNet could not be reached (`plantguide diagnose --plant ID --save`) go first, \
            to Pl@ntNet's disease service; their answers join the plants' histories.

            --json prints {sent, changed, skipped, failed, expired, remainingQuota, stoppedBecause, dryRun, items, \
            diagnosed, diagnosesWaiting, diagnoses}: sent = answered now, changed = answers that flagged a plant, \
            skipped = still queued afterwards; diagnosed and diagnosesWaiting count the waiting diagnoses.

            Examples:
              plantguide recheck
              plantguide recheck --dry-run --json
              plantguide recheck --limit 5 --reserve 100
            """
    )

    @Flag(help: "Show what would be sent without sending anything.")
    var dryRun = false

    @Option(help: "Send at most this many.")
    var limit: Int?

    @Option(help: "Pl@ntNet requests to keep for identifications asked for now (default: \(RecheckDrain.defaultReserve), 10 % of the free daily quota).")
    var reserve = RecheckDrain.defaultReserve

    @Option(name: .customLong("lang"), help: "Language of common names in the answers, e.g. en, fr, de.")
    var language = "en"

    @Flag(help: "Show each Pl@ntNet request on standard error (the API key is hidden).")
    var verbose = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        guard reserve >= 0 else { throw ValidationError("--reserve cannot be negative.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let setup = PlantNetSetup(context)
        let identifier = RecheckSetup.identifier(setup: setup, language: language, verbose: verbose, console: console)
        // The disease service, for diagnoses kept while Pl@ntNet could not be reached (each in its own language).
        var diagnose: (@Sendable ([Data], [String], String) async -> DiagnosisRecheckAnswer)?
        if case .success(let service) = setup.service(console: console, verbose: verbose) {
            diagnose = LivePlantNet.diagnoseWaiting(service: service)
        }
        let options = LivePlantNet.options(language: language)
        let quota = setup.quota(console: console)
        let drain = RecheckDrain(
            collection: environment.collection, reserve: reserve,
            budget: { let status = await quota.status(); return RecheckBudget(remaining: status.remaining, blocked: status.isBlocked) },
            ask: { photos, organs in await identifier.recheck(photos: photos, organs: organs, options: options) },
            diagnose: diagnose
        )
        let bar = ProgressBar(label: dryRun ? "Checking" : "Re-checking")
        let result = try await drain.run(limit: limit, dryRun: dryRun) { done, total in
            bar.update(done: Double(done), total: Double(total), detail: "\(done)/\(total)", force: true)
        }
        bar.finish()
        if output.json {
            try console.printJSON(result)
        } else {
            print(result, console: console)
        }
        if identifier.online == nil, result.sent == 0, !dryRun, result.skipped + result.diagnosesWaiting > 0 { throw ExitCode(1) }
    }

    private func print(_ result: RecheckRun, console: Console) {
        if result.items.isEmpty, result.diagnoses.isEmpty, result.stoppedBecause == nil {
            console.print(result.skipped + result.diagnosesWaiting == 0
                ? "Nothing to re-check." : "\(counted(result.skipped + result.diagnosesWaiting, "item")) waiting.")
        }
        for item in result.diagnoses {
            let subject = "plant \(item.plantId), health record \(item.healthRecordId)"
            switch item.outcome {
            case .answered:
                let answer = item.disease.map { "\($0) \(Int(((item.score ?? 0) * 100).rounded())) %" } ?? "no disease found"
                console.print("\(subject): diagnosis: \(answer)")
            case .failed: console.print("\(subject): " + console.style("failed: \(item.error ?? "unknown")", .red))
            case .gaveUp: console.print("\(subject): " + console.style("not diagnosed, given up: \(item.error ?? "unknown")", .red))
            case .busy: console.print("\(subject): being sent by another PlantGuide process")
            case .wouldSend: console.print("\(subject): would be sent to the disease service")
            }
        }
        for item in result.items {
            let subject = item.plantId.map { "plant \($0)" } ?? "identification \(item.identificationId)"
            switch item.outcome {
            case .answered:
                let answer = item.species.map { "\($0) \(Int(((item.confidence ?? 0) * 100).rounded())) %" } ?? "no plant found"
                let flag = item.suggestionId.map { console.style("  → suggestion \($0): see `plantguide recheck list`", .yellow) } ?? ""
                console.print("\(subject): \(answer)\(flag)")
            case .failed: console.print("\(subject): " + console.style("failed: \(item.error ?? "unknown")", .red))
            case .busy: console.print("\(subject): being sent by another PlantGuide process")
            case .wouldSend: console.print("\(subject): would be sent (queued because \(item.reason.label))")
            }
        }
        var summary = result.dryRun
            ? "Would send \(result.sent), leaving \(result.skipped) queued"
            : "Sent \(result.sent), \(result.changed) changed, \(result.skipped) still queued"
        if result.expired > 0 { summary += ", \(result.expired) expired" }
        if result.diagnosed + result.diagnosesWaiting > 0 {
            summary += result.dryRun
                ? "; would diagnose \(result.diagnosed), leaving \(result.diagnosesWaiting) waiting"
                : "; diagnosed \(result.diagnosed), \(result.diagnosesWaiting) still waiting"
        }
        if let remaining = result.remainingQuota { summary += "; \(counted(remaining, "Pl@ntNet request")) left today" }
        console.print(summary + ".")
        if let reason = result.stoppedBecause { console.warn("Stopped: \(reason)") }
    }
}

/// The parts the re-check commands share.
enum RecheckSetup {
    /// A hybrid identifier with Pl@ntNet only (and the live enrichment), for re-checks.
    static func identifier(setup: PlantNetSetup, language: String, verbose: Bool, console: Console) -> HybridIdentifier {
        var online: OnlineIdentifier?
        var missing = "no Pl@ntNet API key is configured."
        switch setup.service(console: console, verbose: verbose) {
        case .success(let service): online = .live(service: service, prepare: LivePlantNet.prepare)
        case .failure(let error): missing = error.description
        }
        return HybridIdentifier(
            onDevice: nil, online: online, catalog: nil, onlineMissingReason: missing,
            enricher: LiveEnrichment.make(language: language, console: console, context: setup.context)
        )
    }
}
