import ArgumentParser
import PlantCatalog
import PlantGuideCore

struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "List the catalog A to Z, optionally one category.",
        discussion: """
            Examples:
              plantguide browse --category orchid
              plantguide browse --category air-plant --json
            """
    )

    @Option(help: "Only this category (e.g. cactus, fern, trailing-climbing).")
    var category: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try parseCategory(category)
    }

    func run() async throws {
        let console = Console()
        let sections = try PlantCatalog().browse(category: try parseCategory(category))
        if output.json {
            try console.printJSON(sections)
            return
        }
        for section in sections {
            console.print(console.style("\(section.letter)  (\(section.plants.count))", .cyan))
            for plant in section.plants { console.print(console.plantLine(plant)) }
        }
        let total = sections.reduce(0) { $0 + $1.plants.count }
        console.print(counted(total, "plant"))
    }
}
