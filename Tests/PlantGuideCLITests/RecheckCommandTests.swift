import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide recheck`: identifications answered on the device wait for Pl@ntNet and get better when it answers.
/// Real processes, a real SQLite file, and the project's Pl@ntNet stub on 127.0.0.1 (down, then up).
@Suite struct RecheckCommandTests {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PlantClassifierTests/Fixtures")

    private var leaf: String { Self.fixtures.appendingPathComponent("leaf.jpg").path }

    /// A runner with the tiny ResNet18 installed, pointed at `url` for Pl@ntNet.
    private func runner(plantNet url: URL) throws -> CommandLineRunner {
        // The fixture model's random weights make every photo look alike: recognising the collection's own plants is
        // kept out of these tests (a confident match would answer without Pl@ntNet, and queue nothing).
        let cli = try CommandLineRunner(environment: [
            "PLANTGUIDE_PLANTNET_URL": url.absoluteString, "PLANTNET_API_KEY": "stub-key",
            "PLANTGUIDE_MATCH_THRESHOLD": "1", "PLANTGUIDE_SPECIES_MATCH_THRESHOLD": "1",
        ])
        let imported = try cli.run(["model", "import", Self.fixtures.appendingPathComponent("tiny-resnet18.pth").path, "--arch", "resnet18"])
        #expect(imported.status == 0, "\(imported.stderr)")
        return cli
    }

    private func photo(_ cli: CommandLineRunner, seed: UInt8) throws -> String {
        let url = cli.home.appendingPathComponent("photo-\(seed).png")
        try PNGFixture.gradient(width: 96, height: 64, seed: seed).write(to: url)
        return url.path
    }

    private func object(_ outcome: CommandLineRunner.Outcome) throws -> [String: Any] {
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try outcome.json() as? [String: Any], "stdout: \(outcome.stdout) stderr: \(outcome.stderr)")
    }

    @Test func anOfflineAnswerIsQueuedSentWhenPlantNetIsBackAndFlagsThePlant() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let port = offline.port
        let cli = try runner(plantNet: URL(string: "http://127.0.0.1:\(port)")!)
        defer { cli.cleanUp() }

        // Offline: the device answers, and both the saved and the unsaved identification are queued.
        let saved = try object(try cli.run(["identify", leaf, "--save", "--create-plant", "--json"]))
        #expect(saved["source"] as? String == "onDevice")
        let savedRecheck = try #require(saved["recheck"] as? [String: Any])
        #expect(savedRecheck["reason"] as? String == "offline")
        let plantId = try #require((saved["saved"] as? [String: Any])?["plantId"] as? Int)
        let deviceSpecies = try #require((saved["predictions"] as? [[String: Any]])?.first?["scientificName"] as? String)
        let unsaved = try object(try cli.run(["identify", try photo(cli, seed: 3), "--organ", "flower", "--json"]))
        #expect((unsaved["recheck"] as? [String: Any])?["identificationId"] is Int)  // kept, waiting for the re-check
        #expect(unsaved["saved"] == nil)
        let text = try cli.run(["identify", try photo(cli, seed: 4)])
        #expect(text.stdout.contains("Queued for a Pl@ntNet re-check"))

        let stillOffline = try object(try cli.run(["recheck", "--json"]))
        #expect(stillOffline["sent"] as? Int == 0)
        #expect(stillOffline["skipped"] as? Int == 3)
        #expect((stillOffline["stoppedBecause"] as? String)?.contains("cannot be reached") == true)
        let listed = try object(try cli.run(["recheck", "list", "--json"]))
        #expect((listed["summary"] as? [String: Any])?["queued"] as? Int == 3)
        let queue = try #require(listed["queue"] as? [[String: Any]])
        #expect(queue.first?["plantId"] as? Int == plantId)  // saved plants first
        #expect((queue.first { $0["plantId"] == nil && ($0["photos"] as? [[String: Any]])?.first?["organ"] as? String == "flower" }) != nil)

        // Pl@ntNet is back: the queue drains, the plant is flagged, never renamed.
        let stub = try await PlantNetStub.start(takingOver: offline)
        defer { Task { await stub.stop() } }
        let dry = try object(try cli.run(["recheck", "--dry-run", "--json"]))
        #expect(dry["sent"] as? Int == 3 && dry["dryRun"] as? Bool == true)
        #expect(stub.requestCount == 0)
        let drained = try object(try cli.run(["recheck", "--json"]))
        #expect(drained["sent"] as? Int == 3)
        #expect(drained["changed"] as? Int == 1)
        #expect(drained["skipped"] as? Int == 0)
        #expect(drained["remainingQuota"] as? Int == 497)
        #expect(stub.requestCount == 3)
        // The re-checks spent quota, and the statistics say so.
        let stats = try object(try cli.run(["stats", "--json"]))
        let today = try #require((stats["quotaPerDay"] as? [[String: Any]])?.first)
        #expect(today["apiCalls"] as? Int == 3)
        let flower = try #require(stub.requests.first { $0.parts.contains { $0.name == "organs" && $0.text == "flower" } })
        #expect(flower.parts.filter { $0.name == "images" }.count == 1)

        let shown = try object(try cli.run(["collection", "show", String(plantId), "--json"]))
        #expect((shown["plant"] as? [String: Any])?["name"] as? String == deviceSpecies)
        let history = try #require(shown["identifications"] as? [[String: Any]])
        #expect(history.count == 2)
        let original = try #require(history.first { ($0["identification"] as? [String: Any])?["source"] as? String == "onDevice" })
        let recheck = try #require(original["recheck"] as? [String: Any])
        #expect(recheck["state"] as? String == "done")
        let answer = try #require(history.first { $0["recheckOf"] as? Int == original["id"] as? Int })
        #expect(recheck["resultId"] as? Int == answer["id"] as? Int)
        #expect((answer["identification"] as? [String: Any])?["source"] as? String == "plantNetAPI")
        let suggestion = try #require((shown["suggestions"] as? [[String: Any]])?.first)
        #expect(suggestion["suggestedSpecies"] as? String == "Monstera deliciosa")
        #expect(suggestion["kind"] as? String == "recheck")
        let showText = try cli.run(["collection", "show", String(plantId)])
        #expect(showText.stdout.contains("Pl@ntNet thinks this is Monstera deliciosa (91 %)"))

        let accepted = try object(try cli.run(["recheck", "accept", String(try #require(suggestion["id"] as? Int)), "--json"]))
        #expect((accepted["plant"] as? [String: Any])?["species"] as? String == "Monstera deliciosa")
        let again = try cli.run(["recheck", "accept", String(try #require(suggestion["id"] as? Int))])
        #expect(again.status != 0 && !again.killedBySignal)
        #expect(again.stderr.contains("already accepted"))
        #expect(try object(try cli.run(["recheck", "--json"]))["sent"] as? Int == 0)
        #expect(stub.requestCount == 3)
    }

    @Test func theQueueKeepsTheReserveAndStopsAtA429() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 3
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(plantNet: stub.baseURL)
        defer { cli.cleanUp() }
        // The tiny model is never sure: with Pl@ntNet set up, on-device answers are queued as uncertain.
        for seed: UInt8 in 1...3 {
            let answer = try object(try cli.run(["identify", try photo(cli, seed: seed), "--strategy", "on-device", "--json"]))
            #expect((answer["recheck"] as? [String: Any])?["reason"] as? String == "uncertain")
        }
        let kept = try object(try cli.run(["recheck", "--reserve", "1", "--json"]))
        #expect(kept["sent"] as? Int == 2)
        #expect(kept["skipped"] as? Int == 1)
        #expect(kept["remainingQuota"] as? Int == 1)
        #expect((kept["stoppedBecause"] as? String)?.contains("kept for identifications asked for now") == true)
        #expect(stub.requestCount == 2)

        // With no reserve the last request is spent; the stub then answers 429 to the next one.
        #expect(try object(try cli.run(["recheck", "--reserve", "0", "--json"]))["sent"] as? Int == 1)
        _ = try cli.run(["identify", try photo(cli, seed: 9), "--strategy", "on-device"])
        let quota = try object(try cli.run(["quota", "--json"]))
        #expect(quota["level"] as? String == "exhausted")
        let blocked = try object(try cli.run(["recheck", "--reserve", "0", "--json"]))
        #expect(blocked["sent"] as? Int == 0 && blocked["skipped"] as? Int == 1)
        #expect(stub.requestCount == 3)  // blocked before sending

        // A 429 the tracker did not expect stops the run and counts no attempt against the item.
        let fresh = try runner(plantNet: stub.baseURL)
        defer { fresh.cleanUp() }
        _ = try fresh.run(["identify", try photo(fresh, seed: 11), "--strategy", "on-device"])
        let refused = try object(try fresh.run(["recheck", "--reserve", "0", "--json"]))
        #expect(refused["sent"] as? Int == 0)
        #expect((refused["stoppedBecause"] as? String)?.contains("quota") == true)
        let queue = try #require(try object(try fresh.run(["recheck", "list", "--json"]))["queue"] as? [[String: Any]])
        #expect(queue.count == 1 && queue.first?["attempts"] as? Int == 0)
    }

    @Test func killingADrainMidRequestLosesNothingAndSendsNoCommittedItemAgain() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.latency = .milliseconds(600)
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(plantNet: stub.baseURL)
        defer { cli.cleanUp() }
        for seed: UInt8 in 1...4 { _ = try cli.run(["identify", try photo(cli, seed: seed), "--strategy", "on-device"]) }
        #expect((try object(try cli.run(["recheck", "list", "--json"]))["summary"] as? [String: Any])?["queued"] as? Int == 4)

        let process = Process()
        process.executableURL = cli.executable
        process.arguments = ["recheck", "--json"]
        var environment = ProcessInfo.processInfo.environment
        environment["PLANTGUIDE_HOME"] = cli.home.path
        environment.merge(cli.environment) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the second request: the first answer is committed, the second is in flight. (A blocking wait: other
        // tests block the cooperative threads with their child processes, which would make a task's sleep oversleep.)
        let deadline = Date().addingTimeInterval(30)
        while stub.requestCount < 2, Date() < deadline { usleep(10_000) }
        usleep(200_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let sentBeforeKill = stub.requestCount

        let summary = try #require(try object(try cli.run(["recheck", "list", "--json"]))["summary"] as? [String: Any])
        let done = try #require(summary["done"] as? Int)
        #expect(done >= 1 && done < 4)
        #expect(summary["queued"] as? Int == 4 - done)  // nothing lost

        let resumed = try object(try cli.run(["recheck", "--json"]))
        #expect(resumed["sent"] as? Int == 4 - done)
        #expect(stub.requestCount == sentBeforeKill + 4 - done)
        let after = try #require(try object(try cli.run(["recheck", "list", "--all", "--json"]))["summary"] as? [String: Any])
        #expect(after["done"] as? Int == 4 && after["queued"] as? Int == 0)
        // One answer per identification: none recorded twice.
        let queue = try #require(try object(try cli.run(["recheck", "list", "--all", "--json"]))["queue"] as? [[String: Any]])
        let results = queue.compactMap { $0["resultId"] as? Int }
        #expect(results.count == 4 && Set(results).count == 4)
    }

    @Test func rescoringWithANewModelFlagsPlantsItDisagreesAboutOnce() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        #expect(try cli.run(["model", "import", Self.fixtures.appendingPathComponent("tiny-resnet18.pth").path, "--arch", "resnet18"]).status == 0)
        let saved = try object(try cli.run(["identify", leaf, "--strategy", "on-device", "--save", "--create-plant", "--json"]))
        let plantId = try #require((saved["saved"] as? [String: Any])?["plantId"] as? Int)
        let before = try #require((saved["predictions"] as? [[String: Any]])?.first?["scientificName"] as? String)
        // Nothing to re-score with the model that made the answer.
        #expect(try object(try cli.run(["recheck", "rescore", "--json"]))["rescored"] as? Int == 0)

        let imported = try cli.run([
            "model", "import", Self.fixtures.appendingPathComponent("tiny-resnet34.pth").path, "--arch", "resnet34", "--labels", "index",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let dry = try cli.run(["recheck", "rescore", "--dry-run"])
        #expect(dry.stdout.contains("Would re-score 1 identification with resnet34-index"))
        let run = try object(try cli.run(["recheck", "rescore", "--json"]))
        #expect(run["model"] as? String == "resnet34-index")
        #expect(run["rescored"] as? Int == 1)
        #expect(run["changed"] as? Int == 1)
        let item = try #require((run["items"] as? [[String: Any]])?.first)
        #expect(item["previousSpecies"] as? String == before)
        #expect(item["previousModel"] as? String == "resnet18-plantnet300k")
        let newSpecies = try #require(item["species"] as? String)
        #expect(newSpecies != before)

        let shown = try object(try cli.run(["collection", "show", String(plantId), "--json"]))
        let suggestion = try #require((shown["suggestions"] as? [[String: Any]])?.first)
        #expect(suggestion["kind"] as? String == "rescore")
        #expect(suggestion["previousModel"] as? String == "resnet18-plantnet300k")
        #expect(suggestion["model"] as? String == "resnet34-index")
        #expect(suggestion["suggestedSpecies"] as? String == newSpecies)
        #expect((shown["identifications"] as? [Any])?.count == 2)
        // Once re-scored with a model, a plant is not redone; dismissing keeps its species.
        #expect(try object(try cli.run(["recheck", "rescore", "--json"]))["rescored"] as? Int == 0)
        let dismissed = try object(try cli.run(["recheck", "dismiss", String(try #require(suggestion["id"] as? Int)), "--json"]))
        #expect((dismissed["suggestion"] as? [String: Any])?["resolution"] as? String == "dismissed")
        #expect((dismissed["plant"] as? [String: Any])?["name"] as? String == before)

        let missing = try cli.run(["recheck", "rescore", "no-such-model"])
        #expect(missing.status != 0 && !missing.killedBySignal)
        #expect(missing.stderr.contains("No model named 'no-such-model'"))
        #expect(missing.stderr.contains("resnet18-plantnet300k"))
    }
}

/// Archives carry photos, not embeddings: importing one indexes its photos with the installed model at once.
@Suite struct ImportIndexingTests {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PlantClassifierTests/Fixtures")

    private func runnerWithModel() throws -> CommandLineRunner {
        let cli = try CommandLineRunner()
        let imported = try cli.run(["model", "import", Self.fixtures.appendingPathComponent("tiny-resnet18.pth").path, "--arch", "resnet18"])
        #expect(imported.status == 0, "\(imported.stderr)")
        return cli
    }

    @Test func importingAnArchiveIndexesItsPhotosForRecognition() throws {
        let source = try runnerWithModel()
        defer { source.cleanUp() }
        let leaf = Self.fixtures.appendingPathComponent("leaf.jpg").path
        #expect(try source.run(["collection", "add", "Snake plant", "--nickname", "Spike", "--photo", leaf]).status == 0)
        let archive = source.home.appendingPathComponent("plants.zip").path
        #expect(try source.run(["export", archive]).status == 0)

        let target = try runnerWithModel()
        defer { target.cleanUp() }
        let imported = try target.run(["import", archive])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Indexed 1 photo for recognising your plants."))
        let reindex = try #require(try target.run(["collection", "reindex", "--json"]).json() as? [String: Any])
        #expect(reindex["indexed"] as? Int == 0)
        #expect(reindex["alreadyCurrent"] as? Int == 1)
    }
}
