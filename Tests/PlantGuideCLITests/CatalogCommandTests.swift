import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Testing

/// `plantguide search | browse | catalog stats`, run as a person would.
@Suite struct CatalogCommandTests {
    let cli: CommandLineRunner

    init() throws {
        cli = try CommandLineRunner()
    }

    @Test func searchJSONIsAnArrayBestFirst() throws {
        let outcome = try cli.run(["search", "Monstera deliciosa", "--json", "--limit", "5"])
        #expect(outcome.status == 0)
        let results = try #require(try outcome.json() as? [[String: Any]])
        #expect(results.count <= 5)
        let first = try #require(results.first)
        #expect(first["scientificName"] as? String == "Monstera deliciosa")
        #expect(first["family"] as? String == "Araceae")
        #expect(first["commonNames"] is [String])
        #expect(first["category"] as? String != nil)
    }

    @Test func searchTextListsRankedLines() throws {
        let outcome = try cli.run(["search", "snake", "plant", "--limit", "3"])
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.contains("1. Dracaena trifasciata") == true)
    }

    @Test func categoryFilterOnTheCommandLine() throws {
        let outcome = try cli.run(["search", "a", "--category", "air-plant", "--json"])
        let results = try #require(try outcome.json() as? [[String: Any]])
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0["category"] as? String == "Air Plant" })
    }

    @Test func misspelledCategoryListsTheValidOnes() throws {
        let outcome = try cli.run(["search", "fern", "--category", "ferns"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("Unknown category 'ferns'"))
        for category in PlantCategory.allCases {
            #expect(outcome.stderr.contains(category.argumentName))
        }
    }

    @Test func nothingFoundExitsNonZeroButJSONIsEmpty() throws {
        let text = try cli.run(["search", "qqqqqqqq"])
        #expect(text.status == 1)
        #expect(text.stdout.contains("No plants match"))
        let json = try cli.run(["search", " ", "--json"])
        #expect(json.status == 0)
        #expect((try json.json() as? [Any])?.isEmpty == true)
    }

    @Test func searchesOverTheLimitsAreRefusedWithTheLimit() throws {
        let long = try cli.run(["search", String(repeating: "a", count: 40_000)])
        #expect(long.status == 64)
        #expect(long.stderr.contains("The search is longer than 200 characters."))
        let wordy = try cli.run(["search"] + Array(repeating: "fern", count: 13))
        #expect(wordy.status == 64)
        #expect(wordy.stderr.contains("The search has more than 12 words."))
    }

    @Test func statsJSONHasTheDocumentedShape() throws {
        let outcome = try cli.run(["catalog", "stats", "--json"])
        #expect(outcome.status == 0)
        let stats = try #require(try outcome.json() as? [String: Any])
        let entries = try #require(stats["entries"] as? Int)
        let categories = try #require(stats["categories"] as? [String: Int])
        #expect(entries >= 2_000)
        #expect(try #require(stats["families"] as? Int) >= 45)
        #expect(categories.values.reduce(0, +) == entries)
        #expect(Set(categories.keys) == Set(PlantCategory.allCases.map(\.rawValue)))
    }

    @Test func browseGroupsAndFilters() throws {
        let outcome = try cli.run(["browse", "--category", "palm", "--json"])
        #expect(outcome.status == 0)
        let sections = try #require(try outcome.json() as? [[String: Any]])
        let letters = sections.compactMap { $0["letter"] as? String }
        #expect(letters == letters.sorted())
        let plants = sections.flatMap { ($0["plants"] as? [[String: Any]]) ?? [] }
        #expect(!plants.isEmpty)
        #expect(plants.allSatisfy { $0["category"] as? String == "Palm" })
    }

    @Test(arguments: [["--help"], ["search", "--help"], ["browse", "--help"], ["catalog", "stats", "--help"]])
    func helpTeachesWithAnExample(arguments: [String]) throws {
        let outcome = try cli.run(arguments)
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("plantguide"))
        #expect(outcome.stdout.contains("Example"))
    }

    @Test func missingCatalogIsAReadableError() throws {
        var broken = cli
        broken.environment["PLANTGUIDE_CATALOG"] = cli.home.appendingPathComponent("nope.json").path
        let outcome = try broken.run(["search", "fern"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("cannot be read"))
    }

    @Test func corruptCatalogIsAReadableError() throws {
        let file = cli.home.appendingPathComponent("bad.json")
        try Data("{\"plants\": [".utf8).write(to: file)
        var broken = cli
        broken.environment["PLANTGUIDE_CATALOG"] = file.path
        let outcome = try broken.run(["catalog", "stats"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("not a catalog JSON file"))
    }
}
