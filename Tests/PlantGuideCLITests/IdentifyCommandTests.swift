import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide identify`, `quota`, `cache` and `config set-api-key`, run as separate processes against the stub.
@Suite struct IdentifyCommandTests {
    private func runner(_ stub: PlantNetStub, key: String? = "stub-key") throws -> CommandLineRunner {
        var environment = ["PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString]
        if let key { environment["PLANTNET_API_KEY"] = key }
        return try CommandLineRunner(environment: environment)
    }

    private func writePhoto(_ runner: CommandLineRunner, seed: UInt8) throws -> String {
        let url = runner.home.appendingPathComponent("photo-\(seed).png")
        try PNGFixture.gradient(width: 96, height: 64, seed: seed).write(to: url)
        return url.path
    }

    private func json(_ outcome: CommandLineRunner.Outcome) throws -> [String: Any] {
        try #require(try outcome.json() as? [String: Any], "stdout: \(outcome.stdout) stderr: \(outcome.stderr)")
    }

    @Test func identifiesWithTheAPIAndAnswersTheSecondTimeFromTheCache() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let photo = try writePhoto(cli, seed: 1)

        let first = try cli.run(["identify", photo, "--strategy", "api", "--organ", "leaf", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let answer = try json(first)
        #expect(answer["source"] as? String == "plantNetAPI")
        #expect(answer["remainingRequests"] as? Int == 499)
        let best = try #require((answer["predictions"] as? [[String: Any]])?.first)
        #expect(best["scientificName"] as? String == "Monstera deliciosa")
        #expect(best["gbifId"] as? String == "2868241")
        #expect(best["family"] as? String == "Araceae")
        #expect(best["inCatalog"] is Bool)
        let sent = try #require(stub.requests.last)
        #expect(sent.parts.first { $0.name == "organs" }?.text == "leaf")
        // Asked as the web app asks: the answer cache they share then has the reference photos the web shows.
        #expect(sent.query["include-related-images"] == "true")
        let jpeg = try #require(sent.parts.first { $0.name == "images" })
        #expect(jpeg.data.starts(with: [0xFF, 0xD8]))  // re-encoded as JPEG by the upload preparation

        let second = try cli.run(["identify", photo, "--strategy", "api", "--organ", "leaf", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try json(second)["source"] as? String == "cache")
        #expect(stub.requestCount == 1)

        let stats = try cli.run(["cache", "stats", "--json"])
        #expect(try json(stats)["entries"] as? Int == 1)
        #expect(try cli.run(["cache", "clear"]).status == 0)
        #expect(try json(try cli.run(["cache", "stats", "--json"]))["entries"] as? Int == 0)
    }

    @Test func quotaPersistsAcrossProcessesAndBlocksAfter429() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 1
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }

        #expect(try json(try cli.run(["quota", "--json"]))["level"] as? String == "unknown")
        #expect(try cli.run(["identify", try writePhoto(cli, seed: 1), "--strategy", "api"]).status == 0)
        let afterOne = try json(try cli.run(["quota", "--json"]))
        #expect(afterOne["remaining"] as? Int == 0)
        #expect(afterOne["level"] as? String == "exhausted")
        #expect(afterOne["resetsAt"] is String)

        let blocked = try cli.run(["identify", try writePhoto(cli, seed: 2), "--strategy", "api"])
        #expect(blocked.status != 0)
        #expect(!blocked.killedBySignal)
        #expect(blocked.stderr.contains("quota"))
        #expect(blocked.stderr.contains("resets at"))
        #expect(stub.requestCount == 1)  // blocked before sending
    }

    @Test func a429IsRememberedByTheNextProcess() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 0
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let first = try cli.run(["identify", try writePhoto(cli, seed: 1), "--strategy", "api"])
        #expect(first.status != 0)
        #expect(try json(try cli.run(["quota", "--json"]))["level"] as? String == "exhausted")
        _ = try cli.run(["identify", try writePhoto(cli, seed: 2), "--strategy", "api"])
        #expect(stub.requestCount == 1)
    }

    @Test func onDeviceStrategySaysNoModelIsInstalled() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let photo = cli.home.appendingPathComponent("p.png")
        try PNGFixture.gradient().write(to: photo)
        let outcome = try cli.run(["identify", photo.path, "--strategy", "on-device"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no on-device model is installed"))
    }

    @Test func noModelAdviceSuggestsSettingAKeyOnlyWhenNoneIsConfigured() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        for key in ["stub-key", nil] {
            let cli = try runner(stub, key: key)
            defer { cli.cleanUp() }
            let outcome = try cli.run(["identify", try writePhoto(cli, seed: 1), "--strategy", "on-device"])
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("no on-device model is installed"))
            #expect(outcome.stderr.contains("set PLANTNET_API_KEY") == (key == nil), "\(outcome.stderr)")
            #expect(outcome.stderr.contains("--strategy api") == (key != nil), "\(outcome.stderr)")
        }
    }

    @Test func quotaIsShownOnlyWhenPlantNetWasAsked() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 5
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet18.pth")
        #expect(try cli.run(["model", "import", model.path, "--arch", "resnet18"]).status == 0)
        let photo = try writePhoto(cli, seed: 1)
        // One request leaves 4 of 5: a warning level.
        let online = try cli.run(["identify", photo, "--strategy", "api"])
        #expect(online.status == 0, "\(online.stderr)")
        #expect(online.stdout.contains("Pl@ntNet requests left today: 4"))
        #expect(online.stderr.contains("only 4 Pl@ntNet requests left today"))
        let onDevice = try cli.run(["identify", photo, "--strategy", "on-device"])
        #expect(onDevice.status == 0, "\(onDevice.stderr)")
        #expect(!onDevice.stdout.contains("requests left"))
        #expect(!onDevice.stderr.contains("requests left"))
    }

    @Test func didYouMeanLeavesOutTheCandidates() async throws {
        // Pl@ntNet's older name for the snake plant: the catalog suggests the plant under its current name…
        let old = StubSpecies("Sansevieria trifasciata", authorship: "Prain", family: "Asparagaceae", score: 0.35, gbifId: "2")
        let current = StubSpecies("Dracaena trifasciata", authorship: "(Prain) Mabb.", family: "Asparagaceae", score: 0.3, gbifId: "3")
        var behaviour = PlantNetStubBehaviour()
        behaviour.species = [old]
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        func suggestions(seed: UInt8) throws -> [String]? {
            let outcome = try cli.run(["identify", try writePhoto(cli, seed: seed), "--strategy", "api"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            guard let start = lines.firstIndex(of: "Did you mean:") else { return nil }
            return Array(lines[(start + 1)...].prefix { $0.hasPrefix("  ") && !$0.hasPrefix("   ") })
        }
        let alone = try #require(try suggestions(seed: 1))
        #expect(alone.contains { $0.contains("Dracaena trifasciata") })
        // …but not when that name is already one of the candidates.
        stub.configure { $0.species = [old, current] }
        let repeated = try suggestions(seed: 2) ?? []
        #expect(!repeated.contains { $0.contains("Dracaena trifasciata") }, "\(repeated)")
    }

    @Test func savedKeyIsPrivateAndNeverPrinted() async throws {
        let secret = "secret-\(UUID().uuidString)"
        var behaviour = PlantNetStubBehaviour()
        behaviour.apiKey = secret
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let cli = try runner(stub, key: nil)
        defer { cli.cleanUp() }
        let saved = try cli.run(["config", "set-api-key"], input: Data((secret + "\n").utf8))
        #expect(saved.status == 0)
        let file = cli.home.appendingPathComponent("plantnet-api-key")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let run = try cli.run(["identify", try writePhoto(cli, seed: 3), "--strategy", "api", "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("api-key=***"))
        for outcome in [saved, run] {
            #expect(!outcome.stdout.contains(secret))
            #expect(!outcome.stderr.contains(secret))
        }
        #expect(stub.requests.last?.query["api-key"] == secret)
    }

    @Test func wrongKeyIsAReadableErrorWithoutTheKey() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try runner(stub, key: "wrong-secret-value")
        defer { cli.cleanUp() }
        let outcome = try cli.run(["identify", try writePhoto(cli, seed: 1), "--strategy", "api", "--verbose"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("401"))
        #expect(!outcome.stderr.contains("wrong-secret-value"))
    }

    @Test func damagedCacheIsSetAsideNotACrash() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try runner(stub)
        defer { cli.cleanUp() }
        try Data("not json at all".utf8).write(to: cli.home.appendingPathComponent("plantnet-cache.json"))
        let outcome = try cli.run(["identify", try writePhoto(cli, seed: 1), "--strategy", "api", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("damaged"))
        #expect(try json(outcome)["source"] as? String == "plantNetAPI")
    }

    /// The command line keeps the upload rules the web keeps: a file that is no photo, or an empty one, is refused by
    /// name before anything is decoded or sent.
    @Test func aFileThatIsNoPhotoIsRefusedByName() throws {
        let cli = try CommandLineRunner(environment: ["PLANTNET_API_KEY": "stub-key"])
        defer { cli.cleanUp() }
        let notes = cli.home.appendingPathComponent("notes.jpg")
        try Data("shopping list".utf8).write(to: notes)
        let empty = cli.home.appendingPathComponent("empty.jpg")
        try Data().write(to: empty)
        for (file, reason) in [(notes, "it is none of the photo formats read (JPEG, PNG, WebP and HEIC)"), (empty, "the file is empty")] {
            let outcome = try cli.run(["identify", file.path, "--strategy", "api"])
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("Cannot read the photo '\(file.path)': \(reason)."), "\(outcome.stderr)")
        }
    }

    @Test func missingPhotoIsAReadableError() throws {
        let cli = try CommandLineRunner(environment: ["PLANTNET_API_KEY": "stub-key"])
        defer { cli.cleanUp() }
        let outcome = try cli.run(["identify", cli.home.appendingPathComponent("nope.jpg").path, "--strategy", "api"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("Cannot read the photo"))
        #expect(outcome.stderr.contains("no such file"))
    }

    @Test(arguments: [
        ["identify"], ["identify", "a.jpg", "--organ", "leaf", "--organ", "flower"], ["identify", "a.jpg", "--organ", "habit"],
        ["identify", "a.jpg", "--strategy", "magic"], ["identify", "1", "2", "3", "4", "5", "6"],
    ])
    func badArgumentsAreRefused(arguments: [String]) throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let outcome = try cli.run(arguments)
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(!outcome.stderr.isEmpty)
    }
}
