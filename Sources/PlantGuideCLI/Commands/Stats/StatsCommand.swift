import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

/// `plantguide stats`: where the time of identifications goes, how often the cache answers, and Pl@ntNet use per day.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how identifications went: time per stage, cache hits, Pl@ntNet quota used per day.",
        discussion: """
            Every identification made by `plantguide identify` or the web app, saved or not, is logged \
            without its photos in the collection database (kept 90 days, at most 20,000); one that \
            fails with no answer is not.

            Over the last N identifications (--last, default 100) it shows, per stage (decode, preprocess, \
            inference, upload preparation, Pl@ntNet round trip, queue on the web app, total), how many \
            identifications measured it and the median (p50) and 95th percentile (p95) in milliseconds, \
            by the nearest-rank method (always a time that really happened); where the answers came from; \
            and how often the cache answered instead of Pl@ntNet: each hit is a request, and one \
            identification of the daily quota, saved.

            Then, per UTC day over the last 30 days (the quota resets at 00:00 UTC): the identifications \
            Pl@ntNet answered for this installation, those the cache answered, and the fewest identifications \
            Pl@ntNet said were left, which counts every use of the key.

            Examples:
              plantguide stats
              plantguide stats --last 500
              plantguide stats --json | jq '.stages[] | select(.stage == "inference")'
            """
    )

    @Option(help: "How many of the latest identifications to summarise.")
    var last = 100

    @OptionGroup var output: OutputOptions

    func validate() throws {
        let most = IdentificationRunRetention.standard.maximumCount
        guard (1...most).contains(last) else { throw ValidationError("--last must be between 1 and \(most), not \(last).") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let statistics = try await environment.store.identificationStatistics(last: last, days: 30, now: environment.now())
        if output.json {
            try console.printJSON(statistics)
            return
        }
        guard statistics.identifications > 0 else {
            console.print("No identifications logged yet: `plantguide identify` and the web app log every one they make.")
            return
        }
        Self.printText(statistics, console: console)
    }

    static func printText(_ statistics: IdentificationStatistics, console: Console) {
        let shown = statistics.identifications < statistics.last
            ? "\(counted(statistics.identifications, "identification")) logged"
            : "the last \(counted(statistics.identifications, "identification"))"
        console.print(console.style("Time per stage, over \(shown)", .cyan) + console.style("  (p50 and p95: nearest rank)", .dim))
        let width = IdentificationStage.allCases.map(\.label.count).max() ?? 0
        console.print(console.style(
            "  " + "Stage".padding(toLength: width, withPad: " ", startingAt: 0) + "  Count        p50        p95", .dim
        ))
        for figures in statistics.stages {
            console.print("  " + figures.stage.label.padding(toLength: width, withPad: " ", startingAt: 0)
                + "  " + pad(String(figures.count), 5) + "  " + pad(milliseconds(figures.p50Milliseconds), 9)
                + "  " + pad(milliseconds(figures.p95Milliseconds), 9))
        }
        let sources = statistics.sources
        console.print("Answers: \(sources["onDevice"] ?? 0) on the device, \(sources["plantNetAPI"] ?? 0) from Pl@ntNet, "
            + "\(sources["cache"] ?? 0) from the cache")
        if let rate = statistics.cacheHitRate {
            console.print("Cache: \(counted(statistics.cacheHits, "hit")) of \(statistics.cacheHits + statistics.apiCalls) "
                + "Pl@ntNet answers (\(Int((rate * 100).rounded())) %), \(counted(statistics.apiCallsSaved, "request")) saved")
        } else {
            console.print("Cache: Pl@ntNet was not asked, so the cache was not used.")
        }
        console.print(console.style("Pl@ntNet per day (UTC), last 30 days", .cyan))
        guard !statistics.quotaPerDay.isEmpty else {
            console.print("  No identifications in the last 30 days.")
            return
        }
        console.print(console.style("  Day         Answered  From cache  Fewest left", .dim))
        for day in statistics.quotaPerDay {
            console.print("  \(day.day)  " + pad(String(day.apiCalls), 8) + "  " + pad(String(day.cacheHits), 10)
                + "  " + pad(day.lowestRemaining.map(String.init) ?? "–", 11))
        }
    }

    /// "0.4 ms", "41 ms", "1.2 s".
    static func milliseconds(_ value: Double) -> String {
        if value >= 1000 { return String(format: "%.1f s", value / 1000) }
        if value < 10 { return String(format: "%.1f ms", value) }
        return String(format: "%.0f ms", value)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
