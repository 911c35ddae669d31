import Foundation

/// How identifications have gone lately: per-stage timings, where answers came from, how often the cache saved a
/// Pl@ntNet request, and the Pl@ntNet quota spent per day. `plantguide stats` and the web app's Settings show it.
public struct IdentificationStatistics: Sendable, Codable, Hashable {
    /// How long one stage took over the identifications that had it.
    public struct StageFigures: Sendable, Codable, Hashable {
        /// The stage.
        public var stage: IdentificationStage
        /// How many of the identifications measured it.
        public var count: Int
        /// Median milliseconds (nearest rank, see ``Percentile``).
        public var p50Milliseconds: Double
        /// 95th percentile milliseconds (nearest rank).
        public var p95Milliseconds: Double

        /// Creates figures.
        public init(stage: IdentificationStage, count: Int, p50Milliseconds: Double, p95Milliseconds: Double) {
            self.stage = stage
            self.count = count
            self.p50Milliseconds = p50Milliseconds
            self.p95Milliseconds = p95Milliseconds
        }
    }

    /// Pl@ntNet use on one UTC day (the quota resets at 00:00 UTC).
    public struct QuotaDay: Sendable, Codable, Hashable {
        /// The day, `YYYY-MM-DD` in UTC.
        public var day: String
        /// Identifications Pl@ntNet answered: quota spent by this installation.
        public var apiCalls: Int
        /// Identifications the cache answered instead: requests saved.
        public var cacheHits: Int
        /// The fewest identifications Pl@ntNet said were left that day, when it said; it counts every use of the
        /// key, including other apps sharing it.
        public var lowestRemaining: Int?

        /// Creates a day.
        public init(day: String, apiCalls: Int, cacheHits: Int, lowestRemaining: Int?) {
            self.day = day
            self.apiCalls = apiCalls
            self.cacheHits = cacheHits
            self.lowestRemaining = lowestRemaining
        }
    }

    /// How many identifications were asked for (`--last`).
    public var last: Int
    /// How many there were (at most ``last``): the figures below cover these.
    public var identifications: Int
    /// Per stage, in ``IdentificationStage`` order; stages no identification measured are left out.
    public var stages: [StageFigures]
    /// How many answers came from each source, keyed by ``IdentificationSource`` raw values (every source present).
    public var sources: [String: Int]
    /// Answers Pl@ntNet gave (quota spent).
    public var apiCalls: Int
    /// Answers the cache gave instead of Pl@ntNet.
    public var cacheHits: Int
    /// Pl@ntNet requests the cache saved: one per cache hit.
    public var apiCallsSaved: Int
    /// ``cacheHits`` over the answers that came from Pl@ntNet or its cache; `nil` when there were none.
    public var cacheHitRate: Double?
    /// Pl@ntNet use per UTC day, newest first; days without identifications are left out.
    public var quotaPerDay: [QuotaDay]
    /// How the percentiles are computed.
    public var percentileMethod = "nearest-rank"

    /// Computes the figures from the last identifications (`runs`, any order) and the per-day Pl@ntNet counts.
    /// - Parameter last: how many identifications were asked for.
    public init(runs: [IdentificationRun], last: Int, quotaPerDay: [QuotaDay]) {
        self.last = last
        identifications = runs.count
        stages = IdentificationStage.allCases.compactMap { stage in
            let values = runs.compactMap { $0.timings[stage: stage] }
            guard let p50 = Percentile.nearestRank(50, of: values), let p95 = Percentile.nearestRank(95, of: values) else {
                return nil
            }
            return StageFigures(stage: stage, count: values.count, p50Milliseconds: p50, p95Milliseconds: p95)
        }
        var sources = Dictionary(uniqueKeysWithValues: IdentificationSource.allCases.map { ($0.rawValue, 0) })
        for run in runs { sources[run.source.rawValue, default: 0] += 1 }
        self.sources = sources
        apiCalls = runs.filter(\.apiCalled).count
        cacheHits = runs.filter(\.cacheHit).count
        apiCallsSaved = cacheHits
        cacheHitRate = apiCalls + cacheHits > 0 ? Double(cacheHits) / Double(apiCalls + cacheHits) : nil
        self.quotaPerDay = quotaPerDay
    }
}

extension IdentificationStatistics {
    private enum CodingKeys: String, CodingKey {
        case last, identifications, stages, sources, apiCalls, cacheHits, apiCallsSaved, cacheHitRate, quotaPerDay
        case percentileMethod
    }

    /// Encodes every key, `null` included, so the JSON has the same shape whatever the figures.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(last, forKey: .last)
        try container.encode(identifications, forKey: .identifications)
        try container.encode(stages, forKey: .stages)
        try container.encode(sources, forKey: .sources)
        try container.encode(apiCalls, forKey: .apiCalls)
        try container.encode(cacheHits, forKey: .cacheHits)
        try container.encode(apiCallsSaved, forKey: .apiCallsSaved)
        try container.encode(cacheHitRate, forKey: .cacheHitRate)
        try container.encode(quotaPerDay, forKey: .quotaPerDay)
        try container.encode(percentileMethod, forKey: .percentileMethod)
    }
}

extension IdentificationStatistics.QuotaDay {
    private enum CodingKeys: String, CodingKey {
        case day, apiCalls, cacheHits, lowestRemaining
    }

    /// Encodes every key, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(day, forKey: .day)
        try container.encode(apiCalls, forKey: .apiCalls)
        try container.encode(cacheHits, forKey: .cacheHits)
        try container.encode(lowestRemaining, forKey: .lowestRemaining)
    }
}
