import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing

/// `plantguide stats`, and the logging of every identification it sums up, run as separate processes.
@Suite struct StatsCommandTests {
    /// The small PyTorch checkpoint and leaf photo the classifier's tests are built on.
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PlantClassifierTests/Fixtures")

    private func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso) ?? Date(timeIntervalSince1970: 0) }

    @Test func statsJSONFromKnownRuns() throws {
        let cli = try collectionRunner(now: "2026-11-24T12:00:00Z")
        defer { cli.cleanUp() }
        let database = try CollectionDatabase.open(in: DataDirectory(url: cli.home))
        let runs: [(String, IdentificationSource, [String: Double], Int?)] = [
            ("2026-11-23T09:00:00Z", .plantNetAPI, ["prepareUpload": 40, "request": 800, "total": 850], 499),
            ("2026-11-24T08:00:00Z", .onDevice, ["decode": 10, "preprocess": 2, "inference": 100, "total": 115], nil),
            ("2026-11-24T08:10:00Z", .cache, ["prepareUpload": 50, "total": 55], nil),
            ("2026-11-24T08:20:00Z", .onDevice, ["decode": 30, "preprocess": 4, "inference": 300, "total": 340], nil),
            ("2026-11-24T08:30:00Z", .plantNetAPI, ["prepareUpload": 60, "request": 1200, "total": 1270], 497),
        ]
        for (time, source, timings, remaining) in runs {
            try database.recordIdentificationRun(IdentificationRun(
                date: date(time), strategy: "parallel", source: source, cacheHit: source == .cache,
                apiCalled: source == .plantNetAPI, remainingRequests: remaining, timings: timings
            ), now: date("2026-11-24T12:00:00Z"))
        }

        let json = try cli.jsonObject(["stats", "--json", "--last", "4"])
        #expect(Set(json.keys) == [
            "last", "identifications", "stages", "sources", "apiCalls", "cacheHits", "apiCallsSaved", "cacheHitRate",
            "quotaPerDay", "percentileMethod",
        ])
        #expect(json["last"] as? Int == 4)
        #expect(json["identifications"] as? Int == 4)
        #expect(json["percentileMethod"] as? String == "nearest-rank")
        let stages = try #require(json["stages"] as? [[String: Any]])
        #expect(stages.compactMap { $0["stage"] as? String } == ["decode", "preprocess", "inference", "prepareUpload", "request", "total"])
        let total = try #require(stages.last)
        #expect(Set(total.keys) == ["stage", "count", "p50Milliseconds", "p95Milliseconds"])
        // The last four totals: 55, 115, 340, 1270.
        #expect(total["count"] as? Int == 4)
        #expect(total["p50Milliseconds"] as? Double == 115)
        #expect(total["p95Milliseconds"] as? Double == 1270)
        #expect(json["sources"] as? [String: Int] == ["onDevice": 2, "plantNetAPI": 1, "cache": 1])
        #expect(json["apiCalls"] as? Int == 1)
        #expect(json["cacheHits"] as? Int == 1)
        #expect(json["apiCallsSaved"] as? Int == 1)
        #expect(json["cacheHitRate"] as? Double == 0.5)
        // Per day covers 30 days, not only the last four identifications.
        let days = try #require(json["quotaPerDay"] as? [[String: Any]])
        #expect(days.map { $0["day"] as? String } == ["2026-11-24", "2026-11-23"])
        #expect(days.first?["apiCalls"] as? Int == 1)
        #expect(days.first?["cacheHits"] as? Int == 1)
        #expect(days.first?["lowestRemaining"] as? Int == 497)
        #expect(days.last?["lowestRemaining"] as? Int == 499)

        let text = try cli.run(["stats", "--last", "4"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("over the last 4 identifications"), "\(text.stdout)")
        #expect(text.stdout.contains("Inference"))
        #expect(text.stdout.contains("1 hit of 2 Pl@ntNet answers (50 %), 1 request saved"), "\(text.stdout)")
        #expect(text.stdout.contains("2026-11-23"))
    }

    @Test func emptyLogAndBadArguments() throws {
        let cli = try collectionRunner()
        defer { cli.cleanUp() }
        let empty = try cli.run(["stats"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("No identifications logged yet"))
        let json = try cli.jsonObject(["stats", "--json"])
        #expect(json["identifications"] as? Int == 0)
        #expect(json["cacheHitRate"] is NSNull)
        #expect((json["stages"] as? [Any])?.isEmpty == true)
        for bad in ["0", "-3", "20001"] {
            let outcome = try cli.run(["stats", "--last", bad])
            #expect(outcome.status != 0)
            #expect(!outcome.killedBySignal)
            #expect(outcome.stderr.contains("--last"), "\(outcome.stderr)")
        }
    }

    /// Identifications on the device are logged saved or not, with decode and preprocess timed apart; a saved one
    /// keeps the same stages in its history.
    @Test func onDeviceIdentificationsAreLoggedAndSavedWithTheirTimings() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let imported = try cli.run([
            "model", "import", Self.fixtures.appendingPathComponent("tiny-resnet18.pth").path, "--arch", "resnet18",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let photo = Self.fixtures.appendingPathComponent("leaf.jpg").path

        let answer = try cli.jsonObject(["identify", photo, "--strategy", "on-device", "--json"])
        let timings = try #require(answer["timings"] as? [String: Double])
        #expect(Set(timings.keys) == ["decode", "preprocess", "inference", "total"])
        #expect(timings.values.allSatisfy { $0 >= 0 })
        #expect(try #require(timings["total"]) >= timings["inference"] ?? .infinity)

        let saved = try cli.jsonObject(["identify", photo, "--strategy", "on-device", "--save", "--create-plant", "--json"])
        let plantId = try #require((saved["saved"] as? [String: Any])?["plantId"] as? Int)
        let shown = try cli.jsonObject(["collection", "show", String(plantId), "--json"])
        let filed = try #require((shown["identifications"] as? [[String: Any]])?.first)
        let kept = try #require((filed["identification"] as? [String: Any])?["timings"] as? [String: Double])
        #expect(Set(kept.keys) == ["decode", "preprocess", "inference", "total"])
        let savedTimings = try #require(saved["timings"] as? [String: Double])
        for (stage, value) in kept { #expect(abs(value - (savedTimings[stage] ?? -1)) < 0.001, "\(stage)") }

        let stats = try cli.jsonObject(["stats", "--json"])
        #expect(stats["identifications"] as? Int == 2)
        #expect(stats["sources"] as? [String: Int] == ["onDevice": 2, "plantNetAPI": 0, "cache": 0])
        let stages = try #require(stats["stages"] as? [[String: Any]])
        #expect(stages.compactMap { $0["stage"] as? String } == ["decode", "preprocess", "inference", "total"])
        #expect(stages.allSatisfy { $0["count"] as? Int == 2 })
        #expect((stats["quotaPerDay"] as? [[String: Any]])?.first?["apiCalls"] as? Int == 0)
    }

    /// Through the Pl@ntNet stub: the first answer spends quota, the second comes from the cache and saves a request.
    @Test func aCacheHitIsCountedAsARequestSaved() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try CommandLineRunner(environment: [
            "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key",
        ])
        defer { cli.cleanUp() }
        let photo = cli.home.appendingPathComponent("photo.png")
        try PNGFixture.gradient(width: 96, height: 64, seed: 3).write(to: photo)
        let first = try cli.jsonObject(["identify", photo.path, "--strategy", "api", "--json"])
        #expect(Set((first["timings"] as? [String: Double] ?? [:]).keys) == ["prepareUpload", "request", "total"])
        let second = try cli.jsonObject(["identify", photo.path, "--strategy", "api", "--json"])
        #expect(second["source"] as? String == "cache")
        // A cached answer made no round trip, so it reports none.
        #expect(Set((second["timings"] as? [String: Double] ?? [:]).keys) == ["prepareUpload", "total"])
        #expect(stub.requestCount == 1)

        let stats = try cli.jsonObject(["stats", "--json"])
        #expect(stats["apiCalls"] as? Int == 1)
        #expect(stats["cacheHits"] as? Int == 1)
        #expect(stats["apiCallsSaved"] as? Int == 1)
        #expect(stats["cacheHitRate"] as? Double == 0.5)
        let stages = try #require(stats["stages"] as? [[String: Any]])
        #expect(stages.first { $0["stage"] as? String == "request" }?["count"] as? Int == 1)
        #expect(stages.first { $0["stage"] as? String == "prepareUpload" }?["count"] as? Int == 2)
        let today = try #require((stats["quotaPerDay"] as? [[String: Any]])?.first)
        #expect(today["apiCalls"] as? Int == 1)
        #expect(today["cacheHits"] as? Int == 1)
        #expect(today["lowestRemaining"] as? Int == 499)
    }

    /// A log that cannot be written never fails the identification: it warns.
    @Test func aLogThatCannotBeWrittenOnlyWarns() throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let imported = try cli.run([
            "model", "import", Self.fixtures.appendingPathComponent("tiny-resnet18.pth").path, "--arch", "resnet18",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        try Data("not a database at all".utf8).write(to: cli.home.appendingPathComponent(CollectionDatabase.fileName))
        let outcome = try cli.run(["identify", Self.fixtures.appendingPathComponent("leaf.jpg").path, "--strategy", "on-device", "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("not counted in `plantguide stats`"), "\(outcome.stderr)")
        #expect(try (outcome.json() as? [String: Any])?["source"] as? String == "onDevice")
    }
}
