import ArgumentParser
import PlantCatalog
import PlantGuideCore

struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Facts about the bundled houseplant catalog.",
        discussion: """
            Examples:
              plantguide catalog stats
              plantguide catalog stats --json
            """,
        subcommands: [Stats.self]
    )

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count entries, families and plants per category.",
            discussion: """
                Example:
                  plantguide catalog stats --json
                  → {"categories": {"Air Plant": 95, …}, "entries": 2104, "families": 58}
                """
        )

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let console = Console()
            let catalog = PlantCatalog()
            let stats = try catalog.statistics()
            if output.json {
                try console.printJSON(stats)
                return
            }
            console.print("\(stats.entries) plants in \(stats.families) families (sources of \(try catalog.sourceDate()))")
            let width = PlantCategory.allCases.map(\.rawValue.count).max() ?? 0
            for category in PlantCategory.allCases {
                let name = category.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                console.print("  \(name)  \(stats.categories[category.rawValue] ?? 0)")
            }
        }
    }
}
