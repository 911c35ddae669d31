import Foundation
import PlantGuideTestSupport
import Testing

/// "Which of my plants is this?" end to end: real fixture checkpoints, real photos made in code, a real SQLite file.
///
/// The fixture checkpoints have random weights, so their embeddings carry image statistics, not botany: the plants'
/// photos differ clearly (a plasma texture, a smooth gradient), and the photo taken again is the original
/// re-framed (cropped by 8 %), resized and re-encoded as JPEG. The thresholds used here come from the settings
/// (environment variables) and were chosen for these checkpoints; real weights need their own (see
/// docs/collection-recognition.md).
@Suite(.serialized) struct CollectionRecognitionTests {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PlantClassifierTests/Fixtures")

    /// Thresholds for the random-weight fixture models, between the re-taken photo's similarity to its original
    /// (0.9991 with resnet18) and to the other plant's photo (0.980); the stripes reach 0.90. Random features of
    /// any two pictures are alike, so these are far higher than real weights will need.
    static let plantThreshold = "0.99"
    static let speciesThreshold = "0.99"

    private struct Scene {
        var cli: CommandLineRunner
        var spike: Int
        var monty: Int
        /// Spike's photo, re-framed, resized and re-encoded.
        var retaken: String
        /// A photo of neither plant.
        var stranger: String
    }

    private func write(_ data: Data, _ name: String, in cli: CommandLineRunner) throws -> String {
        let url = cli.home.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    /// Imports a fixture checkpoint as the default model (resnet18 has PlantNet-300K's 1,081 classes, resnet34 ten).
    private func importModel(_ architecture: String, into cli: CommandLineRunner) throws {
        let labels = architecture == "resnet18" ? "plantnet300k" : "index"
        let imported = try cli.run([
            "model", "import", Self.fixtures.appendingPathComponent("tiny-\(architecture).pth").path, "--arch", architecture, "--labels", labels,
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    /// Spike (a snake plant, plasma photo) and Monty (a monstera, gradient photo), with the resnet18 fixture installed
    /// first unless `modelFirst` is false.
    private func scene(modelFirst: Bool = true) throws -> Scene {
        var cli = try collectionRunner()
        cli.environment["PLANTGUIDE_MATCH_THRESHOLD"] = Self.plantThreshold
        cli.environment["PLANTGUIDE_SPECIES_MATCH_THRESHOLD"] = Self.speciesThreshold
        if modelFirst { try importModel("resnet18", into: cli) }
        let plasma = TextureFixture.plasma(width: 320, height: 240, seed: 7)
        let spikePhoto = try write(plasma.png, "spike.png", in: cli)
        let montyPhoto = try write(TextureFixture.gradient(width: 320, height: 240, seed: 3).png, "monty.png", in: cli)
        let spike = try cli.jsonObject(["collection", "add", "Snake plant", "--nickname", "Spike", "--room", "Bedroom", "--photo", spikePhoto, "--json"])
        let monty = try cli.jsonObject(["collection", "add", "Monstera deliciosa", "--nickname", "Monty", "--photo", montyPhoto, "--json"])
        let reframed = try write(plasma.cropped(by: 0.08, resizedTo: 280, 210).png, "reframed.png", in: cli)
        let retaken = cli.home.appendingPathComponent("retaken.jpg").path
        let encoded = try cli.run(["image", "upload", reframed, "--output", retaken, "--quality", "80"])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let stranger = try write(TextureFixture.stripes(width: 320, height: 240).png, "stranger.png", in: cli)
        return Scene(
            cli: cli, spike: try #require(spike["id"] as? Int), monty: try #require(monty["id"] as? Int), retaken: retaken,
            stranger: stranger
        )
    }

    private func similarity(_ report: [String: Any], plant: Int) -> Double? {
        (report["nearest"] as? [[String: Any]])?.first { $0["plantId"] as? Int == plant }?["similarity"] as? Double
    }

    @Test func theRetakenPhotoIsClosestToItsOriginal() throws {
        let scene = try scene()
        defer { scene.cli.cleanUp() }
        let report = try scene.cli.jsonObject(["collection", "find", scene.retaken, "--json"])
        let matches = try #require(report["collectionMatches"] as? [[String: Any]])
        #expect(matches.map { $0["plantId"] as? Int } == [scene.spike])
        let match = try #require(matches.first)
        #expect(match["nickname"] as? String == "Spike")
        #expect(match["room"] as? String == "Bedroom")
        #expect(match["scientificName"] as? String == "Dracaena trifasciata")
        #expect((match["photoSHA256"] as? String)?.count == 64)
        let toSpike = try #require(similarity(report, plant: scene.spike))
        let toMonty = try #require(similarity(report, plant: scene.monty))
        #expect(toSpike > toMonty)
        #expect(toSpike >= Double(Self.plantThreshold)!)
        #expect(toMonty < Double(Self.plantThreshold)!)
        let candidates = try #require(report["candidates"] as? [[String: Any]])
        #expect(candidates.map { $0["scientificName"] as? String } == ["Dracaena trifasciata"])
        #expect(candidates.first?["source"] as? String == "collection")
        #expect((report["thresholds"] as? [String: Any])?["plant"] as? Double == Double(Self.plantThreshold))
        let coverage = try #require(report["coverage"] as? [String: Any])
        #expect(coverage["current"] as? Int == 2)
        print("similarity of the retaken photo: Spike \(toSpike), Monty \(toMonty)")

        let text = try scene.cli.run(["collection", "find", scene.retaken])
        #expect(text.stdout.contains("Is this Spike?"), "\(text.stdout)")
        // What is due for the plant recognised, from its care schedule.
        #expect(text.stdout.range(of: #"\(watering (due|overdue)[^)]*\)"#, options: .regularExpression) != nil, "\(text.stdout)")
    }

    @Test func aDifferentPhotoIsNotMatchedAndThresholdsComeFromTheSettings() throws {
        var scene = try scene()
        defer { scene.cli.cleanUp() }
        let stranger = try scene.cli.jsonObject(["collection", "find", scene.stranger, "--json"])
        #expect((stranger["collectionMatches"] as? [Any])?.isEmpty == true)
        #expect((stranger["candidates"] as? [Any])?.isEmpty == true)
        let best = try #require((stranger["nearest"] as? [[String: Any]])?.compactMap { $0["similarity"] as? Double }.max())
        #expect(best < Double(Self.plantThreshold)!)
        print("best similarity of the stranger: \(best)")

        // A stricter setting than any similarity: the retaken photo no longer matches either.
        scene.cli.environment["PLANTGUIDE_MATCH_THRESHOLD"] = "0.99999"
        scene.cli.environment["PLANTGUIDE_SPECIES_MATCH_THRESHOLD"] = "0.99999"
        let strict = try scene.cli.jsonObject(["collection", "find", scene.retaken, "--json"])
        #expect((strict["collectionMatches"] as? [Any])?.isEmpty == true)
        #expect((strict["candidates"] as? [Any])?.isEmpty == true)
        // A looser one lets both plants through.
        scene.cli.environment["PLANTGUIDE_MATCH_THRESHOLD"] = "-1"
        let loose = try scene.cli.jsonObject(["collection", "find", scene.retaken, "--json"])
        #expect((loose["collectionMatches"] as? [[String: Any]])?.compactMap { $0["plantId"] as? Int } == [scene.spike, scene.monty])
        // A wrong value is refused with a clear message.
        scene.cli.environment["PLANTGUIDE_MATCH_THRESHOLD"] = "high"
        let wrong = try scene.cli.run(["collection", "find", scene.retaken])
        #expect(wrong.status != 0)
        #expect(!wrong.killedBySignal)
        #expect(wrong.stderr.contains("PLANTGUIDE_MATCH_THRESHOLD"))
    }

    @Test func identifyNamesTheConfirmedSpeciesAndSkipsPlantNet() throws {
        let scene = try scene()
        defer { scene.cli.cleanUp() }
        let answer = try scene.cli.jsonObject(["identify", scene.retaken, "--strategy", "on-device-first", "--json"])
        #expect(answer["source"] as? String == "onDevice")
        // No key is configured: had Pl@ntNet been asked, a note would say it is not available.
        #expect((answer["notes"] as? [Any])?.isEmpty == true, "\(answer["notes"] ?? "")")
        let best = try #require((answer["predictions"] as? [[String: Any]])?.first)
        #expect(best["scientificName"] as? String == "Dracaena trifasciata")
        #expect(best["source"] as? String == "collection")
        #expect(answer["uncertain"] as? Bool == false)
        let matches = try #require(answer["collectionMatches"] as? [[String: Any]])
        #expect(matches.first?["plantId"] as? Int == scene.spike)
        #expect(matches.first?["nickname"] as? String == "Spike")

        // The stranger is not recognised: the model alone is unsure, so on-device-first turns to Pl@ntNet.
        let unknown = try scene.cli.jsonObject(["identify", scene.stranger, "--strategy", "on-device-first", "--json"])
        #expect((unknown["collectionMatches"] as? [Any])?.isEmpty == true)
        #expect((unknown["predictions"] as? [[String: Any]])?.contains { $0["source"] as? String == "collection" } == false)
        #expect((unknown["notes"] as? [Any])?.isEmpty == false)

        let text = try scene.cli.run(["identify", scene.retaken, "--strategy", "on-device"])
        #expect(text.stdout.contains("Is this Spike?"), "\(text.stdout)")
        #expect(text.stdout.range(of: #"\(watering (due|overdue)[^)]*\)"#, options: .regularExpression) != nil, "\(text.stdout)")
        #expect(text.stdout.contains("from your confirmed photos"))

        // Undoing the confirmation: Spike is still recognised, but no longer names the species.
        let undone = try scene.cli.jsonObject(["collection", "unconfirm", String(scene.spike), "--json"])
        #expect((undone["withdrawn"] as? [String: Any])?["species"] as? String == "Dracaena trifasciata")
        let after = try scene.cli.jsonObject(["identify", scene.retaken, "--strategy", "on-device", "--json"])
        #expect((after["collectionMatches"] as? [[String: Any]])?.first?["plantId"] as? Int == scene.spike)
        #expect((after["predictions"] as? [[String: Any]])?.contains { $0["source"] as? String == "collection" } == false)
        let again = try scene.cli.run(["collection", "unconfirm", String(scene.spike)])
        #expect(again.stdout.contains("had no confirmed species"))
        let missing = try scene.cli.run(["collection", "unconfirm", "999"])
        #expect(missing.status != 0)
        #expect(!missing.killedBySignal)
    }

    @Test func reindexFillsMissingAndStaleEmbeddingsAfterAModelChange() throws {
        let scene = try scene(modelFirst: false)
        defer { scene.cli.cleanUp() }
        let noModel = try scene.cli.run(["collection", "reindex"])
        #expect(noModel.status != 0)
        #expect(noModel.stderr.contains("model install"), "\(noModel.stderr)")

        try importModel("resnet18", into: scene.cli)
        let first = try scene.cli.jsonObject(["collection", "reindex", "--json"])
        #expect(first["indexed"] as? Int == 2)
        #expect(first["alreadyCurrent"] as? Int == 0)
        #expect((first["model"] as? [String: Any])?["name"] as? String == "resnet18-plantnet300k")
        let repeated = try scene.cli.jsonObject(["collection", "reindex", "--json"])
        #expect(repeated["indexed"] as? Int == 0)
        #expect(repeated["alreadyCurrent"] as? Int == 2)
        let found = try scene.cli.jsonObject(["collection", "find", scene.retaken, "--json"])
        #expect((found["collectionMatches"] as? [[String: Any]])?.first?["plantId"] as? Int == scene.spike)

        // Another model: every embedding is stale until reindexed with it.
        try importModel("resnet34", into: scene.cli)
        let stale = try scene.cli.jsonObject(["collection", "find", scene.retaken, "--json"])
        #expect((stale["collectionMatches"] as? [Any])?.isEmpty == true)
        #expect((stale["coverage"] as? [String: Any])?["stale"] as? Int == 2)
        let second = try scene.cli.jsonObject(["collection", "reindex", "--json"])
        #expect(second["indexed"] as? Int == 2)
        #expect((second["model"] as? [String: Any])?["name"] as? String == "resnet34-index")
        let coverage = try #require(try scene.cli.jsonObject(["collection", "find", scene.stranger, "--json"])["coverage"] as? [String: Any])
        #expect(coverage["current"] as? Int == 2)
        #expect(coverage["stale"] as? Int == 0)
    }

    /// `identify --save --create-plant` accepts the answer: the new plant's photo is indexed and names its species.
    @Test func savedIdentificationsAreIndexedAndConfirmed() throws {
        let scene = try scene()
        defer { scene.cli.cleanUp() }
        let saved = try scene.cli.jsonObject([
            "identify", scene.stranger, "--strategy", "on-device", "--save", "--create-plant", "--json",
        ])
        let plantId = try #require((saved["saved"] as? [String: Any])?["plantId"] as? Int)
        let species = try #require((saved["predictions"] as? [[String: Any]])?.first?["scientificName"] as? String)
        let found = try scene.cli.jsonObject(["collection", "find", scene.stranger, "--json"])
        let match = try #require((found["collectionMatches"] as? [[String: Any]])?.first)
        #expect(match["plantId"] as? Int == plantId)
        #expect(try #require(match["similarity"] as? Double) > 0.999)
        #expect((found["candidates"] as? [[String: Any]])?.first?["scientificName"] as? String == species)
    }
}
