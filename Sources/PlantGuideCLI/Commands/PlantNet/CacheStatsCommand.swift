import ArgumentParser
import Foundation

/// `plantguide cache stats`.
struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many Pl@ntNet answers are cached.",
        discussion: """
            Examples:
              plantguide cache stats
              plantguide cache stats --json
            """
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let console = Console()
        let cache = PlantNetSetup().cache(console: console)
        let stats = cache.statistics()
        if output.json {
            try console.printJSON(stats)
            return
        }
        console.print("Cached answers: \(stats.entries) of \(stats.capacity)"
            + (stats.expired > 0 ? " (\(stats.expired) expired)" : ""))
        console.print("Kept for: \(Int(stats.timeToLiveDays)) days")
        if let oldest = stats.oldest { console.print("Oldest: \(QuotaText.format(oldest))") }
        if let newest = stats.newest { console.print("Newest: \(QuotaText.format(newest))") }
        console.print("File: \(cache.file.path) (\(stats.fileBytes) bytes)")
    }
}
