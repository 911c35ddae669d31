import ArgumentParser
import Foundation
import PlantNetAPI

/// `plantguide cache stats`.
struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many Pl@ntNet answers are cached.",
        discussion: """
            The cache is kept in the collection database, shared with the web app: the same photo asked about \
            again within 7 days costs no request.

            Examples:
              plantguide cache stats
              plantguide cache stats --json
            """
    )

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let cache = PlantNetSetup(context).cache(console: console)
        let stats = await cache.statistics()
        if output.json {
            try console.printJSON(stats)
            return
        }
        console.print("Cached answers: \(stats.entries) of \(stats.capacity)"
            + (stats.expired > 0 ? " (\(stats.expired) expired)" : ""))
        console.print("Kept for: \(Int(stats.timeToLiveDays)) days")
        if let oldest = stats.oldest { console.print("Oldest: \(QuotaText.format(oldest))") }
        if let newest = stats.newest { console.print("Newest: \(QuotaText.format(newest))") }
        if let file = cache as? IdentificationCache {
            console.print("File: \(file.file.path) (\(stats.fileBytes) bytes)")
        } else {
            console.print("Hits / misses: \(stats.hits) / \(stats.misses)")
            console.print("Kept in: the collection database")
        }
    }
}
