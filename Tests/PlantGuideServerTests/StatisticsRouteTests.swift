import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantIdentification
import PlantStore
import PlantStoreSQLite
import Synchronization
import Testing
@testable import PlantGuideServer

/// The identification statistics in Settings, and the logging of every identification behind them.
@Suite struct StatisticsRouteTests {
    private static func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso) ?? Date(timeIntervalSince1970: 0) }

    /// A real collection database in a temporary folder, as the live server keeps it.
    private static func database() throws -> (CollectionDatabase, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-stats-\(UUID().uuidString)")
        return (try CollectionDatabase.open(in: DataDirectory(url: folder)), folder)
    }

    private static func capability(_ database: CollectionDatabase, now: Date) -> StatisticsCapability {
        StatisticsCapability(
            record: { run in try database.recordIdentificationRun(run, now: now) },
            summary: { last in try database.identificationStatistics(last: last, now: now) }
        )
    }

    @Test func settingsShowTheFiguresOfKnownRuns() async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        let now = Self.date("2026-11-24T12:00:00Z")
        let runs: [(String, IdentificationSource, [String: Double], Int?)] = [
            ("2026-11-23T09:00:00Z", .plantNetAPI, ["queue": 0, "prepareUpload": 40, "request": 800, "total": 850], 499),
            ("2026-11-24T08:00:00Z", .onDevice, ["queue": 0, "decode": 10, "preprocess": 2, "inference": 100, "total": 115], nil),
            ("2026-11-24T08:10:00Z", .cache, ["queue": 1, "prepareUpload": 50, "total": 55], nil),
            ("2026-11-24T08:20:00Z", .onDevice, ["queue": 0, "decode": 30, "preprocess": 4.5, "inference": 300, "total": 340], nil),
            ("2026-11-24T08:30:00Z", .plantNetAPI, ["queue": 2, "prepareUpload": 60, "request": 1200, "total": 1270], 497),
        ]
        for (time, source, timings, remaining) in runs {
            try database.recordIdentificationRun(IdentificationRun(
                date: Self.date(time), strategy: "parallel", source: source, cacheHit: source == .cache,
                apiCalled: source == .plantNetAPI, remainingRequests: remaining, timings: timings
            ), now: now)
        }
        var dependencies = ServerDependencies(catalog: fixtureCatalog)
        dependencies.statistics = Self.capability(database, now: now)
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let page = try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.status == .ok)
                return response.text
            }
            #expect(page.contains(#"<h2 id="statistics">Identification statistics</h2>"#))
            #expect(page.contains("<caption>Time per stage over 5 identifications so far</caption>"), "\(page)")
            #expect(page.contains(#"<th scope="col">Stage</th><th scope="col">Count</th>"#))
            // Nearest rank: decode 10, 30 → p50 10, p95 30; totals 55, 115, 340, 850, 1270 → p50 340, p95 1270.
            #expect(page.contains(#"<tr><th scope="row">Decode</th><td>2</td><td>10 ms</td><td>30 ms</td></tr>"#))
            #expect(page.contains(#"<tr><th scope="row">Preprocess</th><td>2</td><td>2.0 ms</td><td>4.5 ms</td></tr>"#))
            #expect(page.contains(#"<tr><th scope="row">Pl@ntNet round trip</th><td>2</td><td>800 ms</td><td>1.2 s</td></tr>"#))
            #expect(page.contains(#"<tr><th scope="row">Total</th><td>5</td><td>340 ms</td><td>1.3 s</td></tr>"#))
            #expect(page.contains("Answers: 2 on the device, 2 from Pl@ntNet, 1 from the cache."))
            #expect(page.contains("The cache answered 1 of 3 Pl@ntNet identifications (33 %), saving 1 request."))
            #expect(page.contains("<caption>Pl@ntNet use per day (UTC), last 30 days</caption>"))
            #expect(page.contains(#"<tr><th scope="row">2026-11-24</th><td>1</td><td>1</td><td>497</td></tr>"#))
            #expect(page.contains(#"<tr><th scope="row">2026-11-23</th><td>1</td><td>0</td><td>499</td></tr>"#))
        }
    }

    @Test func withoutIdentificationsThePanelSaysSo() async throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        var dependencies = ServerDependencies(catalog: fixtureCatalog)
        dependencies.statistics = Self.capability(database, now: Date())
        try await makeApp(dependencies: dependencies).test(.router) { client in
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains("No identifications yet."))
                #expect(!response.text.contains("<caption>"))
            }
        }
    }

    /// Logging that fails never fails the identification.
    @Test func aLogThatFailsDoesNotFailTheIdentification() async throws {
        let attempts = Mutex(0)
        let run = IdentificationRun(date: Date(), strategy: "on-device", source: .onDevice, cacheHit: false, apiCalled: false, timings: [:])
        let identification = IdentificationCapability(summary: "Fake identifier", strategies: [.auto, .onDevice]) { _ in
            IdentifyOutcome(
                identification: Identification(source: .onDevice, model: "fake", predictions: [
                    SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", confidence: 0.9),
                ], uncertain: false, timings: ["inference": 5]),
                run: run
            )
        }
        var dependencies = ServerDependencies(catalog: fixtureCatalog, identification: identification)
        dependencies.statistics = StatisticsCapability(
            record: { _ in
                attempts.withLock { $0 += 1 }
                throw StoreError.database(operation: "log the identification", reason: "disk full")
            },
            summary: { _ in throw StoreError.database(operation: "read the identification log", reason: "disk full") }
        )
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                let answer = try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
                #expect(Set(answer.timings.keys) == ["inference", "queue", "total"])
            }
            #expect(attempts.withLock { $0 } == 1)
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("The log of identifications cannot be read just now"))
            }
        }
    }

    /// The live server on 127.0.0.1 with the tiny model and a real collection: an identification is logged with
    /// every stage, "This is my plant" keeps the same timings, and Settings counts it.
    @Test func theLiveServerLogsEveryIdentificationAndKeepsTheTimingsOfASavedOne() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        #expect(dependencies.statistics != nil)
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("strategy", "on-device")
            let (headers, body) = session.multipart(form)
            let answer = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(Set(answer.timings.keys) == ["queue", "decode", "preprocess", "inference", "total"])
            let (saveHeaders, saveBody) = session.form([("uploadId", answer.uploadId ?? ""), ("scientificName", "Monstera deliciosa")])
            try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("<caption>Time per stage over 1 identification so far</caption>"), "\(response.text)")
                #expect(response.text.contains(#"<tr><th scope="row">Inference</th><td>1</td>"#))
                #expect(response.text.contains("Answers: 1 on the device, 0 from Pl@ntNet, 0 from the cache."))
            }
            let database = try CollectionDatabase.open(in: DataDirectory(url: home))
            let logged = try database.identificationRuns(last: 10)
            #expect(logged.count == 1)
            #expect(logged.first?.strategy == "on-device")
            #expect(logged.first?.timings.keys.sorted() == answer.timings.keys.sorted())
            let kept = try #require(try database.identifications().first?.identification.timings)
            #expect(kept.keys.sorted() == answer.timings.keys.sorted())
            for (stage, value) in kept { #expect(abs(value - (answer.timings[stage] ?? -1)) < 0.001, "\(stage)") }
        }
    }
}
