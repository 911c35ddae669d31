import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// The identification log behind the statistics on PostgreSQL: the twin of `CollectionDatabase+IdentificationRuns`.
extension PostgresStore: StatisticsStore {
    public func recordIdentificationRun(_ run: IdentificationRun, now: Date, retention: IdentificationRunRetention)
        async throws(StoreError) {
        let household = try scope("log the identification").household
        let timings: String
        do {
            timings = try StageTimingsColumn.encode(run.timings)
        } catch {
            throw .invalid("The identification's timings could not be stored (\(error)).")
        }
        let ranAt = PostgresInstant(run.date), remaining = run.remainingRequests.map { max($0, 0) }
        let keep = Int64(max(retention.maximumCount, 1)), cutoff = PostgresInstant(now.addingTimeInterval(-retention.maximumAge))
        try await inTransaction("log the identification") { connection in
            let rows = try await connection.query("""
                INSERT INTO identificationRun
                    (householdId, ranAt, strategy, source, cacheHit, apiCalled, remainingRequests, timings)
                VALUES (\(household), \(ranAt), \(run.strategy), \(run.source.rawValue), \(run.cacheHit), \(run.apiCalled),
                    \(remaining), \(timings))
                RETURNING id
                """, logger: self.logger)
            for try await _ in rows.decode(Int64.self) {}
            // The household's newest `keep` runs stay (each household keeps its own). Counted, not computed from the
            // newest id: a sequence skips numbers (rolled-back inserts, replicas inserting at once), and a gap would drop
            // runs that should be kept.
            try await connection.query("""
                DELETE FROM identificationRun
                WHERE householdId = \(household)
                    AND (id < (SELECT min(id) FROM (SELECT id FROM identificationRun WHERE householdId = \(household)
                                                    ORDER BY id DESC LIMIT \(keep)) AS kept)
                        OR ranAt < \(cutoff))
                """, logger: self.logger)
        }
    }

    public func identificationRuns(last count: Int) async throws(StoreError) -> [IdentificationRun] {
        let household = try scope("read the identification log").household
        guard count > 0 else { throw .invalid("Ask for at least 1 identification (not \(count)).") }
        return try await withConnection("read the identification log") { connection in
            let rows = try await connection.query("""
                SELECT ranAt, strategy, source, cacheHit, apiCalled, remainingRequests, timings FROM identificationRun
                WHERE householdId = \(household)
                ORDER BY id DESC LIMIT \(count)
                """, logger: self.logger)
            var runs: [IdentificationRun] = []
            for try await (ranAt, strategy, source, cacheHit, apiCalled, remaining, timings)
                in rows.decode((PostgresInstant, String, String, Bool, Bool, Int?, String).self) {
                guard let source = IdentificationSource(rawValue: source) else {
                    throw StoreError.invalid("an identification in the log has an unknown source")
                }
                runs.append(IdentificationRun(
                    date: ranAt.date, strategy: strategy, source: source, cacheHit: cacheHit, apiCalled: apiCalled,
                    remainingRequests: remaining, timings: StageTimingsColumn.decode(timings)
                ))
            }
            return runs
        }
    }

    public func plantNetUsePerDay(days: Int, now: Date) async throws(StoreError) -> [IdentificationStatistics.QuotaDay] {
        // Install-wide: the Pl@ntNet quota is the install's, whichever household spent it. A scope is still required.
        _ = try scope("read the identification log")
        guard days > 0 else { throw .invalid("Ask for at least 1 day (not \(days)).") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let firstDay = calendar.date(byAdding: .day, value: -(days - 1), to: calendar.startOfDay(for: now)) ?? now
        return try await withConnection("read the identification log") { connection in
            let rows = try await connection.query("""
                SELECT to_char(ranAt AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) FILTER (WHERE apiCalled),
                    count(*) FILTER (WHERE cacheHit), min(remainingRequests)
                FROM identificationRun WHERE ranAt >= \(PostgresInstant(firstDay)) GROUP BY day ORDER BY day DESC
                """, logger: self.logger)
            var found: [IdentificationStatistics.QuotaDay] = []
            for try await (day, apiCalls, cacheHits, lowest) in rows.decode((String, Int, Int, Int?).self) {
                found.append(IdentificationStatistics.QuotaDay(
                    day: day, apiCalls: apiCalls, cacheHits: cacheHits, lowestRemaining: lowest
                ))
            }
            return found
        }
    }

    public func identificationStatistics(last: Int, days: Int, now: Date) async throws(StoreError) -> IdentificationStatistics {
        let runs = try await identificationRuns(last: last)
        return IdentificationStatistics(runs: runs, last: last, quotaPerDay: try await plantNetUsePerDay(days: days, now: now))
    }
}
