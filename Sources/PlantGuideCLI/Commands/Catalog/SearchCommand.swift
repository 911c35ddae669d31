import ArgumentParser
import PlantCatalog
import PlantGuideCore

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the bundled houseplant catalog.",
        discussion: """
            Matches scientific names, common names, genus, family and cultivar names. Case, accents \
            and quotes don't matter, each word may be partial, and longer words may carry typos.

            Examples:
              plantguide search "monstera deliciosa"
              plantguide search "philo brasil"             Words match across the name.
              plantguide search sansiveria                 Typos are forgiven.
              plantguide search fern --category fern --limit 5 --json
            """
    )

    @Argument(help: "What to look for, e.g. \"snake plant\" or \"Philodendron 'Birkin'\".")
    var query: [String]

    @Option(help: "Only this category (e.g. cactus, tropical-foliage).")
    var category: String?

    @Option(help: "Only this family (e.g. Araceae).")
    var family: String?

    @Option(help: "Show at most this many results.")
    var limit = 20

    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try parseCategory(category)
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        do {
            try PlantCatalog.checkQuery(query.joined(separator: " "))
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let console = Console()
        let text = query.joined(separator: " ")
        let catalog = PlantCatalog()
        let results = try catalog.search(text, category: try parseCategory(category), family: family, limit: limit)
        if output.json {
            // A plant prints as `{scientificName, commonNames, family, category}`.
            try console.printJSON(results.map(\.plant))
            return
        }
        guard !results.isEmpty else {
            console.print("No plants match \"\(text)\".")
            throw ExitCode(1)
        }
        if let renamed = catalog.renamingNotice(for: text) {
            console.print(console.style(renamed.notice, .dim))
        }
        for (rank, result) in results.enumerated() {
            console.print(console.plantLine(result.plant, rank: rank + 1))
        }
    }
}

extension Console {
    /// `  1. Monstera deliciosa — Swiss Cheese Plant, Monstera  (Araceae · Tropical Foliage)`
    func plantLine(_ plant: CatalogPlant, rank: Int? = nil) -> String {
        var line = rank.map { String(repeating: " ", count: max(0, 3 - String($0).count)) + "\($0). " } ?? "  "
        line += style(plant.scientificName, .bold)
        if !plant.commonNames.isEmpty { line += " — " + plant.commonNames.joined(separator: ", ") }
        line += "  " + style("(\(plant.family) · \(plant.category.rawValue))", .dim)
        return line
    }
}
