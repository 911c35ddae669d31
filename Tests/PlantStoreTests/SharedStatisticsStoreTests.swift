import Foundation
import PlantGuideCore
import PlantStore
import Testing

extension TestStore {
    /// The identification log and the learned names.
    var statistics: any StatisticsStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// The identification log, its statistics and the names learned from Pl@ntNet, through the store protocol on every
/// backend: the same runs give the same figures.
@Suite struct SharedStatisticsStoreTests {
    private let now = isoDate("2026-11-24T12:00:00Z")
    private let learnedAt = Date(timeIntervalSince1970: 1_795_000_000.123)

    private static func run(
        _ iso: String, _ source: IdentificationSource, _ timings: [String: Double] = [:], remaining: Int? = nil
    ) -> IdentificationRun {
        IdentificationRun(
            date: isoDate(iso), strategy: source == .onDevice ? "on-device" : "api", source: source, cacheHit: source == .cache,
            apiCalled: source == .plantNetAPI, remainingRequests: remaining, timings: timings
        )
    }

    /// Runs over two UTC days and the 30-day edge, written alternately through two connections.
    private static let runs = [
        run("2026-10-25T23:59:59Z", .plantNetAPI, ["request": 700, "total": 720], remaining: 100),  // outside 30 days
        run("2026-10-26T00:00:00Z", .plantNetAPI, ["request": 650, "total": 690]),
        run("2026-11-23T23:59:59.5Z", .plantNetAPI, ["prepareUpload": 30, "request": 900, "total": 940], remaining: 490),
        run("2026-11-24T08:00:00Z", .onDevice, ["decode": 10, "preprocess": 2, "inference": 100, "total": 115]),
        run("2026-11-24T08:10:00Z", .onDevice, ["decode": 30, "preprocess": 4, "inference": 300, "total": 340]),
        run("2026-11-24T08:20:00Z", .plantNetAPI, ["prepareUpload": 40, "request": 800, "total": 850], remaining: 498),
        run("2026-11-24T08:30:00Z", .cache, ["prepareUpload": 50, "total": 55]),
        run("2026-11-24T08:40:00Z", .onDevice, ["decode": 20, "preprocess": 3, "inference": 200, "total": 230.125]),
        run("2026-11-24T08:50:00Z", .plantNetAPI, ["prepareUpload": 60, "request": 1200, "total": 1270], remaining: 497),
    ]

    private static func record(_ stores: [TestStore], now: Date) async throws {
        for (index, run) in runs.enumerated() {
            try await stores[index % stores.count].statistics.recordIdentificationRun(run, now: now, retention: .standard)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func knownRunsGiveKnownFigures(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            try await Self.record(stores, now: now)
            let statistics = stores[1].statistics
            let all = try await statistics.identificationStatistics(last: 100, days: 30, now: now)
            #expect(all.identifications == 9)
            let byStage = Dictionary(uniqueKeysWithValues: all.stages.map { ($0.stage, $0) })
            #expect(byStage[.decode] == .init(stage: .decode, count: 3, p50Milliseconds: 20, p95Milliseconds: 30))
            #expect(byStage[.inference] == .init(stage: .inference, count: 3, p50Milliseconds: 200, p95Milliseconds: 300))
            #expect(byStage[.request] == .init(stage: .request, count: 5, p50Milliseconds: 800, p95Milliseconds: 1200))
            #expect(byStage[.total]?.count == 9)
            #expect(all.sources == ["onDevice": 3, "plantNetAPI": 5, "cache": 1])
            #expect(all.apiCalls == 5 && all.cacheHits == 1)
            #expect(all.quotaPerDay == [
                .init(day: "2026-11-24", apiCalls: 2, cacheHits: 1, lowestRemaining: 497),
                .init(day: "2026-11-23", apiCalls: 1, cacheHits: 0, lowestRemaining: 490),
                .init(day: "2026-10-26", apiCalls: 1, cacheHits: 0, lowestRemaining: nil),
            ])
            #expect(try await statistics.plantNetUsePerDay(days: 1, now: now).map(\.day) == ["2026-11-24"])
            await #expect(throws: StoreError.self) { try await statistics.plantNetUsePerDay(days: 0, now: now) }

            // The log reads back exactly as written (dates to the millisecond, timings, nil remaining), newest first.
            let newest = try await stores[0].statistics.identificationRuns(last: 3)
            #expect(newest == Array(Self.runs.suffix(3).reversed()))
            #expect(try await statistics.identificationRuns(last: 100).count == 9)
            await #expect(throws: StoreError.self) { try await statistics.identificationRuns(last: 0) }
            let lastTwo = try await statistics.identificationStatistics(last: 2, days: 30, now: now)
            #expect(lastTwo.stages.first { $0.stage == .total } == .init(stage: .total, count: 2, p50Milliseconds: 230.125, p95Milliseconds: 1270))
        }
    }

    /// The figures one backend gives are the figures the other gives, field for field.
    @Test func everyBackendGivesTheSameFigures() async throws {
        let now = now
        var figures: [IdentificationStatistics] = []
        var logs: [[IdentificationRun]] = []
        for backend in StateBackend.allCases {
            let (statistics, log) = try await backend.withTestStores(2) { stores in
                try await Self.record(stores, now: now)
                return (
                    try await stores[0].statistics.identificationStatistics(last: 7, days: 30, now: now),
                    try await stores[1].statistics.identificationRuns(last: 100)
                )
            }
            figures.append(statistics)
            logs.append(log)
        }
        #expect(figures.count == 2)
        #expect(figures.first == figures.last)
        #expect(logs.first == logs.last)
        #expect(figures.first?.identifications == 7)
    }

    @Test(arguments: StateBackend.allCases)
    func theLogIsBoundedByCountAndByAge(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let retention = IdentificationRunRetention(maximumAge: 10 * 86_400, maximumCount: 5)
            let start = isoDate("2026-11-01T00:00:00Z")
            for hour in 0..<8 {
                let time = start.addingTimeInterval(Double(hour) * 3600)
                var run = Self.run("2026-11-01T00:00:00Z", .onDevice, ["total": Double(hour)])
                run.date = time
                try await stores[hour % 2].statistics.recordIdentificationRun(run, now: time, retention: retention)
            }
            #expect(try await stores[0].statistics.identificationRuns(last: 100).map { $0.timings["total"] } == [7, 6, 5, 4, 3])
            // Eleven days on, everything before the 10-day horizon goes with the next run.
            let later = start.addingTimeInterval(11 * 86_400)
            try await stores[1].statistics.recordIdentificationRun(
                Self.run("2026-11-12T00:00:00Z", .cache, ["total": 99]), now: later, retention: retention
            )
            #expect(try await stores[0].statistics.identificationRuns(last: 100).map { $0.timings["total"] } == [99])
            // The schema refuses a run that both hit the cache and called Pl@ntNet.
            let impossible = IdentificationRun(date: later, strategy: "api", source: .cache, cacheHit: true, apiCalled: true, timings: [:])
            let refused = await #expect(throws: StoreError.self) {
                try await stores[0].statistics.recordIdentificationRun(impossible, now: later, retention: retention)
            }
            #expect(refused?.description.hasPrefix("The collection refused the change") == true, "\(String(describing: refused))")
            #expect(try await stores[1].statistics.identificationRuns(last: 100).count == 1)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func learnedNamesAreLookedUpInOneBatchUnderAnySpelling(_ backend: StateBackend) async throws {
        let learnedAt = learnedAt
        try await backend.withTestStores(2) { stores in
            let writer = stores[0].statistics, reader = stores[1].statistics
            try await writer.recordLearnedSpecies([
                LearnedSpecies(binomial: "Monstera deliciosa", language: "en", commonNames: ["Swiss cheese plant", "Ceriman"],
                               family: "Araceae", gbifId: "2868241", powoId: "urn:lsid:ipni.org:names:87334-1", learnedAt: learnedAt),
                LearnedSpecies(binomial: "Monstera deliciosa", language: "fr", commonNames: ["Faux philodendron"],
                               family: "Araceae", learnedAt: learnedAt.addingTimeInterval(60)),
                LearnedSpecies(binomial: "Bellis perennis", language: "en", commonNames: ["Daisy"], family: "Asteraceae",
                               gbifId: "3117424", learnedAt: learnedAt),
                LearnedSpecies(binomial: "Fragaria × ananassa", language: "en", commonNames: ["Garden strawberry"], learnedAt: learnedAt),
                LearnedSpecies(binomial: "   ", language: "en", commonNames: ["Nothing"], learnedAt: learnedAt),
            ])
            // A newer answer replaces the names but keeps known ids and family; one without names keeps the names.
            try await writer.recordLearnedSpecies([
                LearnedSpecies(binomial: "Bellis perennis", language: "en", commonNames: ["Lawn daisy", "Daisy"],
                               learnedAt: learnedAt.addingTimeInterval(3600)),
                LearnedSpecies(binomial: "Fragaria ×ananassa", language: "en", commonNames: [], family: "Rosaceae", gbifId: "3029779",
                               learnedAt: learnedAt.addingTimeInterval(60)),
            ])
            let asked = ["Monstera deliciosa Liebm.", "MONSTERA deliciosa", "bellis PERENNIS", "Fragaria x ananassa Duchesne",
                         "Monstera adansonii", ""]
            let found = try await reader.learnedSpecies(named: asked + asked)
            #expect(Set(found.keys) == ["Monstera deliciosa Liebm.", "MONSTERA deliciosa", "bellis PERENNIS",
                                        "Fragaria x ananassa Duchesne"])
            let monstera = try #require(found["Monstera deliciosa Liebm."])
            #expect(monstera.map(\.language) == ["fr", "en"])
            #expect(found["MONSTERA deliciosa"] == monstera)
            let english = try #require(monstera.last)
            #expect(english == LearnedSpecies(
                binomial: "Monstera deliciosa", language: "en", commonNames: ["Swiss cheese plant", "Ceriman"], family: "Araceae",
                gbifId: "2868241", powoId: "urn:lsid:ipni.org:names:87334-1", learnedAt: learnedAt.roundedToMilliseconds
            ))
            let daisy = try #require(found["bellis PERENNIS"]?.first)
            #expect(found["bellis PERENNIS"]?.count == 1)
            #expect(daisy.commonNames == ["Lawn daisy", "Daisy"])
            #expect(daisy.gbifId == "3117424" && daisy.family == "Asteraceae")
            #expect(daisy.learnedAt == learnedAt.addingTimeInterval(3600).roundedToMilliseconds)
            let strawberry = try #require(found["Fragaria x ananassa Duchesne"]?.first)
            #expect(strawberry.commonNames == ["Garden strawberry"])
            #expect(strawberry.family == "Rosaceae" && strawberry.gbifId == "3029779")
            #expect(try await reader.learnedSpecies(named: []).isEmpty)
        }
    }
}

/// A moment written in ISO 8601, with or without a fraction of a second.
func isoDate(_ iso: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: iso) ?? ISO8601DateFormatter().date(from: iso) ?? Date(timeIntervalSince1970: 0)
}
