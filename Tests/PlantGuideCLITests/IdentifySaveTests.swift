import Foundation
import PlantGuideTestSupport
import Testing

/// `identify --save`: the answer lands in the collection's history, under a new or existing plant.
@Suite struct IdentifySaveTests {
    /// The small PyTorch checkpoint and leaf photo the classifier's tests are built on.
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PlantClassifierTests/Fixtures")

    private func runnerWithModel() throws -> CommandLineRunner {
        let cli = try CommandLineRunner()
        let imported = try cli.run([
            "model", "import", Self.fixtures.appendingPathComponent("tiny-resnet18.pth").path, "--arch", "resnet18",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        return cli
    }

    private var photo: String { Self.fixtures.appendingPathComponent("leaf.jpg").path }

    @Test func saveWithANewPlantFilesTheAnswerUnderIt() throws {
        let cli = try runnerWithModel()
        defer { cli.cleanUp() }
        let outcome = try cli.run([
            "identify", photo, "--strategy", "on-device", "--save", "--create-plant", "--room", "Kitchen", "--json",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let answer = try #require(try outcome.json() as? [String: Any])
        let saved = try #require(answer["saved"] as? [String: Any])
        let plantId = try #require(saved["plantId"] as? Int)
        let best = try #require((answer["predictions"] as? [[String: Any]])?.first?["scientificName"] as? String)

        let shown = try cli.run(["collection", "show", String(plantId), "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let details = try #require(try shown.json() as? [String: Any])
        #expect((details["plant"] as? [String: Any])?["room"] as? String == "Kitchen")
        let history = try #require(details["identifications"] as? [[String: Any]])
        #expect(history.count == 1)
        #expect(history.first?["chosenSpecies"] as? String == best)
        #expect((details["photos"] as? [Any])?.count == 1)
    }

    @Test func saveUnderAnExistingPlantAndRefuseAMissingOne() throws {
        let cli = try runnerWithModel()
        defer { cli.cleanUp() }
        let added = try cli.run(["collection", "add", "Monstera deliciosa", "--json"])
        let id = try #require((try added.json() as? [String: Any])?["id"] as? Int)
        let outcome = try cli.run(["identify", photo, "--strategy", "on-device", "--save", "--plant", String(id)])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("Saved as identification"))
        let details = try #require(try cli.run(["collection", "show", String(id), "--json"]).json() as? [String: Any])
        #expect((details["identifications"] as? [Any])?.count == 1)

        let missing = try cli.run(["identify", photo, "--strategy", "on-device", "--save", "--plant", "9999"])
        #expect(missing.status != 0)
        #expect(!missing.killedBySignal)
    }

    @Test(arguments: [["--plant", "1"], ["--create-plant"], ["--save", "--plant", "1", "--create-plant"], ["--save", "--batch"]])
    func saveOptionsMustFitTogether(extra: [String]) throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let outcome = try cli.run(["identify", photo] + extra)
        #expect(outcome.status == 64)
        #expect(!outcome.stderr.isEmpty)
    }
}
