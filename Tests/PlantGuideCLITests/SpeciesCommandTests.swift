import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide species show` and `plantguide model labels`, run as a person would.
@Suite struct SpeciesCommandTests {
    let cli: CommandLineRunner

    init() throws {
        cli = try CommandLineRunner()
    }

    @Test func showFindsAWildSpeciesByItsCommonNameAndSaysWhereNamesCameFrom() throws {
        let outcome = try cli.run(["species", "show", "white", "clover", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try #require(try outcome.json() as? [String: Any])
        #expect(report["scientificName"] as? String == "Trifolium repens")
        #expect(report["family"] as? String == "Fabaceae")
        let names = try #require(report["names"] as? [[String: Any]])
        #expect(names.contains { $0["name"] as? String == "white clover" && $0["source"] as? String == "itis" && $0["level"] as? String == "species" })
        #expect(names.contains { $0["source"] as? String == "plantguide-genus" && $0["level"] as? String == "genus" })
        let classes = try #require(report["modelClasses"] as? [[String: Any]])
        #expect(!classes.isEmpty)
        #expect(report["catalogEntry"] == nil || report["catalogEntry"] is NSNull)
    }

    @Test func showForgivesATypoAndBridgesToTheCatalog() throws {
        let outcome = try cli.run(["species", "show", "Alocasia cuculata", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let report = try #require(try outcome.json() as? [String: Any])
        #expect(report["scientificName"] as? String == "Alocasia cucullata")
        let entry = try #require(report["catalogEntry"] as? [String: Any])
        #expect(entry["category"] as? String == "Tropical Foliage")
        #expect((report["careSummary"] as? String)?.contains("water every") == true)
        let related = try #require(report["relatedCatalogPlants"] as? [[String: Any]])
        #expect(related.allSatisfy { ($0["scientificName"] as? String)?.hasPrefix("Alocasia ") == true })
        let names = try #require(report["names"] as? [[String: Any]])
        #expect(names.first?["source"] as? String == "catalog")
    }

    @Test func showTextExplainsAnOutOfModelHouseplant() throws {
        let outcome = try cli.run(["species", "show", "monstera deliciosa"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("Monstera deliciosa — Swiss Cheese Plant"))
        #expect(outcome.stdout.contains("Not among the on-device model's 1,081 classes"))
        #expect(outcome.stdout.contains("(PlantGuide catalog)"))
        #expect(outcome.stdout.contains("Care: "))
    }

    @Test func anUnknownNameIsAClearFailure() throws {
        let outcome = try cli.run(["species", "show", "qqqq zzzz"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("No species matches \"qqqq zzzz\""))
        let tooLong = try cli.run(["species", "show", String(repeating: "a", count: 5_000)])
        #expect(tooLong.status != 0)
        #expect(tooLong.stderr.contains("at most 200 characters"))
    }

    @Test func labelsListEveryClassWithFamilyAndNameLevel() throws {
        let outcome = try cli.run(["model", "labels", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let labels = try #require(try outcome.json() as? [[String: Any]])
        #expect(labels.count == 1081)
        #expect(labels.map { $0["index"] as? Int } == (0..<1081).map { $0 })
        #expect(labels.allSatisfy { ($0["family"] as? String)?.hasSuffix("aceae") == true })
        let levels = labels.compactMap { $0["commonNameLevel"] as? String }
        #expect(Set(levels) == ["species", "genus"])
        let first = try #require(labels.first)
        #expect(first["scientificName"] as? String == "Lactuca virosa")
        #expect(first["speciesId"] as? String == "1355868")
        #expect(first["genus"] as? String == "Lactuca")
        #expect(first["commonNames"] is [String])
    }
}
