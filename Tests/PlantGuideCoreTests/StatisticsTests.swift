import Foundation
import PlantGuideCore
import Testing

@Suite struct PercentileTests {
    /// Worked examples of the nearest-rank method (the sorted values' ⌈p/100 × n⌉-th).
    @Test(arguments: [
        (5.0, [15.0, 20, 35, 40, 50], 15.0), (30, [15, 20, 35, 40, 50], 20), (40, [15, 20, 35, 40, 50], 20),
        (50, [15, 20, 35, 40, 50], 35), (100, [15, 20, 35, 40, 50], 50),
        (25, [3, 6, 7, 8, 8, 10, 13, 15, 16, 20], 7), (50, [3, 6, 7, 8, 8, 10, 13, 15, 16, 20], 8),
        (75, [3, 6, 7, 8, 8, 10, 13, 15, 16, 20], 15), (95, [3, 6, 7, 8, 8, 10, 13, 15, 16, 20], 20),
        (50, [42], 42), (95, [42], 42),
    ])
    func nearestRank(percent: Double, values: [Double], expected: Double) {
        #expect(Percentile.nearestRank(percent, of: values) == expected)
        #expect(Percentile.nearestRank(percent, of: values.reversed()) == expected, "the order of the values does not matter")
    }

    @Test func exactRanksStayExactDespiteFloatingPoint() {
        let values = (1...100).map(Double.init)
        #expect(Percentile.nearestRank(50, of: values) == 50)
        #expect(Percentile.nearestRank(95, of: values) == 95)
        // 7 % of 100 is 7.000000000000001 in floating point: still rank 7.
        #expect(Percentile.nearestRank(7, of: values) == 7)
        #expect(Percentile.nearestRank(95, of: (1...20).map(Double.init)) == 19)
        #expect(Percentile.nearestRank(95, of: (1...21).map(Double.init)) == 20)
    }

    @Test func noValuesOrAPercentOutOfRangeGivesNothing() {
        #expect(Percentile.nearestRank(50, of: []) == nil)
        #expect(Percentile.nearestRank(0, of: [1, 2]) == nil)
        #expect(Percentile.nearestRank(101, of: [1, 2]) == nil)
        #expect(Percentile.nearestRank(50, of: [.nan, .infinity]) == nil)
        #expect(Percentile.nearestRank(100, of: [1, .nan, 3]) == 3)
    }
}

@Suite struct IdentificationStatisticsTests {
    private func run(
        _ source: IdentificationSource, _ timings: [IdentificationStage: Double], cacheHit: Bool = false, apiCalled: Bool = false
    ) -> IdentificationRun {
        IdentificationRun(
            date: Date(timeIntervalSince1970: 1_790_000_000), strategy: "on-device-first", source: source, cacheHit: cacheHit,
            apiCalled: apiCalled, timings: Dictionary(uniqueKeysWithValues: timings.map { ($0.key.rawValue, $0.value) })
        )
    }

    @Test func figuresFromKnownRuns() {
        let runs = [
            run(.onDevice, [.decode: 10, .preprocess: 2, .inference: 100, .total: 115]),
            run(.onDevice, [.decode: 30, .preprocess: 4, .inference: 300, .total: 340]),
            run(.onDevice, [.decode: 20, .preprocess: 3, .inference: 200, .total: 230]),
            run(.plantNetAPI, [.prepareUpload: 40, .request: 800, .total: 850], apiCalled: true),
            run(.plantNetAPI, [.prepareUpload: 60, .request: 1200, .total: 1270], apiCalled: true),
            run(.cache, [.prepareUpload: 50, .total: 55], cacheHit: true),
        ]
        let statistics = IdentificationStatistics(runs: runs, last: 100, quotaPerDay: [])
        #expect(statistics.identifications == 6)
        #expect(statistics.last == 100)
        #expect(statistics.stages.map(\.stage) == [.decode, .preprocess, .inference, .prepareUpload, .request, .total])
        let byStage = Dictionary(uniqueKeysWithValues: statistics.stages.map { ($0.stage, $0) })
        #expect(byStage[.decode] == .init(stage: .decode, count: 3, p50Milliseconds: 20, p95Milliseconds: 30))
        #expect(byStage[.inference] == .init(stage: .inference, count: 3, p50Milliseconds: 200, p95Milliseconds: 300))
        #expect(byStage[.prepareUpload] == .init(stage: .prepareUpload, count: 3, p50Milliseconds: 50, p95Milliseconds: 60))
        #expect(byStage[.request] == .init(stage: .request, count: 2, p50Milliseconds: 800, p95Milliseconds: 1200))
        // Totals 55, 115, 230, 340, 850, 1270: rank ⌈3⌉ = 230 and ⌈5.7⌉ = 1270.
        #expect(byStage[.total] == .init(stage: .total, count: 6, p50Milliseconds: 230, p95Milliseconds: 1270))
        #expect(statistics.sources == ["onDevice": 3, "plantNetAPI": 2, "cache": 1])
        #expect(statistics.apiCalls == 2)
        #expect(statistics.cacheHits == 1)
        #expect(statistics.apiCallsSaved == 1)
        #expect(statistics.cacheHitRate == 1.0 / 3.0)
    }

    @Test func withoutPlantNetThereIsNoHitRateAndTheJSONSaysNull() throws {
        let statistics = IdentificationStatistics(runs: [run(.onDevice, [.inference: 5])], last: 10, quotaPerDay: [
            .init(day: "2026-11-24", apiCalls: 0, cacheHits: 0, lowestRemaining: nil),
        ])
        #expect(statistics.cacheHitRate == nil)
        #expect(statistics.sources == ["onDevice": 1, "plantNetAPI": 0, "cache": 0])
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(statistics)) as? [String: Any])
        #expect(Set(json.keys) == [
            "last", "identifications", "stages", "sources", "apiCalls", "cacheHits", "apiCallsSaved", "cacheHitRate",
            "quotaPerDay", "percentileMethod",
        ])
        #expect(json["cacheHitRate"] is NSNull)
        #expect(json["percentileMethod"] as? String == "nearest-rank")
        let day = try #require((json["quotaPerDay"] as? [[String: Any]])?.first)
        #expect(day["lowestRemaining"] is NSNull)
        let decoded = try JSONDecoder().decode(IdentificationStatistics.self, from: JSONEncoder().encode(statistics))
        #expect(decoded == statistics)
    }

    @Test func runsKeepOnlyKnownStagesWithSaneValues() {
        let kept = IdentificationRun(
            date: Date(), strategy: "api", source: .plantNetAPI, cacheHit: false, apiCalled: true,
            timings: ["request": 12.5, "decodeAndPrepare": 3, "total": -1, "inference": .nan, "queue": 0]
        )
        #expect(kept.timings == ["request": 12.5, "queue": 0])
        var timings: [String: Double] = [:]
        timings[stage: .decode] = 4
        #expect(timings == ["decode": 4])
        #expect(timings[stage: .decode] == 4)
    }
}
