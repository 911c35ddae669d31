import Foundation
import GRDB
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// Timings kept with filed identifications, the log of every identification, and the statistics over it, on a real
/// SQLite file.
@Suite struct IdentificationRunTests {
    private func date(_ iso: String) -> Date {
        ISO8601DateFormatter().date(from: iso) ?? Date(timeIntervalSince1970: 0)
    }

    private func run(
        _ iso: String, _ source: IdentificationSource, _ timings: [String: Double] = [:], remaining: Int? = nil
    ) -> IdentificationRun {
        IdentificationRun(
            date: date(iso), strategy: source == .onDevice ? "on-device" : "api", source: source, cacheHit: source == .cache,
            apiCalled: source == .plantNetAPI, remainingRequests: remaining, timings: timings
        )
    }

    @Test func timingsRoundTripThroughARealSQLiteFile() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let timings: [String: Double] = ["decode": 12.5, "preprocess": 3.25, "inference": 101.125, "request": 812.5, "total": 930]
        let identification = Identification(
            source: .plantNetAPI, model: "Pl@ntNet", predictions: [SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", confidence: 0.9)],
            uncertain: false, timings: timings.merging(["decodeAndPrepare": 7, "queue": -3]) { old, _ in old },
            date: date("2026-11-24T10:00:00Z")
        )
        do {
            let database = try home.open()
            let filed = try database.fileIdentification(identification, now: date("2026-11-24T10:00:01Z"))
            // What was filed is what is kept: known stages with sane values only.
            #expect(filed.identification.timings == timings)
            try database.fileIdentification(
                Identification(source: .onDevice, predictions: [], uncertain: true, date: date("2026-11-24T09:00:00Z")),
                now: date("2026-11-24T10:00:02Z")
            )
        }
        // A second connection to the same file, as the next process would open it.
        let reopened = try CollectionDatabase.open(at: home.databaseURL)
        let history = try reopened.identifications()
        #expect(history.count == 2)
        #expect(history.first?.identification.timings == timings)
        #expect(history.last?.identification.timings == [:])
        let stored = try reopened.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT timings FROM identification ORDER BY id").map { $0[0] as String? }
        }
        #expect(stored == [#"{"decode":12.5,"inference":101.125,"preprocess":3.25,"request":812.5,"total":930}"#, nil])
        // The schema refuses timings that are not a JSON object, whoever writes them.
        #expect(throws: DatabaseError.self) {
            try reopened.writer.write { db in try db.execute(sql: "UPDATE identification SET timings = '[1, 2]'") }
        }
    }

    @Test func statisticsFromKnownRuns() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let now = date("2026-11-24T12:00:00Z")
        let runs = [
            run("2026-11-24T08:00:00Z", .onDevice, ["decode": 10, "preprocess": 2, "inference": 100, "total": 115]),
            run("2026-11-24T08:10:00Z", .onDevice, ["decode": 30, "preprocess": 4, "inference": 300, "total": 340]),
            run("2026-11-24T08:20:00Z", .plantNetAPI, ["prepareUpload": 40, "request": 800, "total": 850], remaining: 498),
            run("2026-11-24T08:30:00Z", .cache, ["prepareUpload": 50, "total": 55]),
            run("2026-11-24T08:40:00Z", .onDevice, ["decode": 20, "preprocess": 3, "inference": 200, "total": 230]),
            run("2026-11-24T08:50:00Z", .plantNetAPI, ["prepareUpload": 60, "request": 1200, "total": 1270], remaining: 497),
        ]
        for run in runs { try database.recordIdentificationRun(run, now: now) }

        let all = try database.identificationStatistics(last: 100, now: now)
        #expect(all.last == 100)
        #expect(all.identifications == 6)
        let byStage = Dictionary(uniqueKeysWithValues: all.stages.map { ($0.stage, $0) })
        #expect(byStage[.decode] == .init(stage: .decode, count: 3, p50Milliseconds: 20, p95Milliseconds: 30))
        #expect(byStage[.preprocess] == .init(stage: .preprocess, count: 3, p50Milliseconds: 3, p95Milliseconds: 4))
        #expect(byStage[.inference] == .init(stage: .inference, count: 3, p50Milliseconds: 200, p95Milliseconds: 300))
        #expect(byStage[.request] == .init(stage: .request, count: 2, p50Milliseconds: 800, p95Milliseconds: 1200))
        #expect(byStage[.total] == .init(stage: .total, count: 6, p50Milliseconds: 230, p95Milliseconds: 1270))
        #expect(byStage[.queue] == nil)
        #expect(all.sources == ["onDevice": 3, "plantNetAPI": 2, "cache": 1])
        #expect(all.apiCalls == 2 && all.cacheHits == 1 && all.apiCallsSaved == 1)
        #expect(all.cacheHitRate == 1.0 / 3.0)
        #expect(all.quotaPerDay == [.init(day: "2026-11-24", apiCalls: 2, cacheHits: 1, lowestRemaining: 497)])

        // The last two only: the on-device run at 08:40 and the Pl@ntNet one at 08:50.
        let lastTwo = try database.identificationStatistics(last: 2, now: now)
        #expect(lastTwo.identifications == 2)
        #expect(lastTwo.stages.first { $0.stage == .total } == .init(stage: .total, count: 2, p50Milliseconds: 230, p95Milliseconds: 1270))
        #expect(lastTwo.cacheHitRate == 0)
        let newest = try database.identificationRuns(last: 1)
        #expect(newest == [runs[5]])
        #expect(throws: StoreError.self) { try database.identificationRuns(last: 0) }
    }

    /// The quota resets at 00:00 UTC: days are UTC days, the window is today and the 29 days before.
    @Test func plantNetUsePerUTCDayOverThirtyDays() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let now = date("2026-11-24T10:00:00Z")
        for run in [
            run("2026-10-25T23:59:59Z", .plantNetAPI, remaining: 100),  // 30 days before today: outside
            run("2026-10-26T00:00:00Z", .plantNetAPI),
            run("2026-11-23T00:00:00Z", .onDevice),
            run("2026-11-23T23:59:59Z", .plantNetAPI, remaining: 490),
            run("2026-11-24T00:00:00Z", .cache),
            run("2026-11-24T08:00:00Z", .plantNetAPI, remaining: 481),
            run("2026-11-24T09:00:00Z", .plantNetAPI, remaining: 480),
        ] {
            try database.recordIdentificationRun(run, now: now)
        }
        #expect(try database.plantNetUsePerDay(days: 30, now: now) == [
            .init(day: "2026-11-24", apiCalls: 2, cacheHits: 1, lowestRemaining: 480),
            .init(day: "2026-11-23", apiCalls: 1, cacheHits: 0, lowestRemaining: 490),
            .init(day: "2026-10-26", apiCalls: 1, cacheHits: 0, lowestRemaining: nil),
        ])
        #expect(try database.plantNetUsePerDay(days: 1, now: now).map(\.day) == ["2026-11-24"])
    }

    @Test func theLogIsBoundedByCountAndByAge() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let retention = IdentificationRunRetention(maximumAge: 10 * 86_400, maximumCount: 5)
        let start = date("2026-11-01T00:00:00Z")
        for hour in 0..<8 {
            let time = start.addingTimeInterval(Double(hour) * 3600)
            var run = run("2026-11-01T00:00:00Z", .onDevice, ["total": Double(hour)])
            run.date = time
            try database.recordIdentificationRun(run, now: time, retention: retention)
        }
        #expect(try database.identificationRuns(last: 100).map { $0.timings["total"] } == [7, 6, 5, 4, 3])
        // Eleven days on, everything before the 10-day horizon goes with the next run.
        let later = start.addingTimeInterval(11 * 86_400)
        try database.recordIdentificationRun(run("2026-11-12T00:00:00Z", .cache, ["total": 99]), now: later, retention: retention)
        #expect(try database.identificationRuns(last: 100).map { $0.timings["total"] } == [99])
        #expect(IdentificationRunRetention.standard.maximumCount >= 30 * 500)
    }

    @Test func theSchemaRefusesARunThatBothHitTheCacheAndCalledTheAPI() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let impossible = IdentificationRun(
            date: date("2026-11-24T10:00:00Z"), strategy: "api", source: .cache, cacheHit: true, apiCalled: true, timings: [:]
        )
        #expect(throws: StoreError.self) { try database.recordIdentificationRun(impossible, now: date("2026-11-24T10:00:00Z")) }
        #expect(try database.identificationRuns(last: 10).isEmpty)
    }
}
