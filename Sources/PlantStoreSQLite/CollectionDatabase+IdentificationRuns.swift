import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Logs one identification for the statistics, and drops runs beyond `retention` in the same transaction.
    public func recordIdentificationRun(
        _ run: IdentificationRun, now: Date, retention: IdentificationRunRetention = .standard
    ) throws(StoreError) {
        let timings: String
        do {
            timings = try StageTimingsColumn.encode(run.timings)
        } catch {
            throw .invalid("The identification's timings could not be stored (\(error)).")
        }
        let household = try self.scope("log the identification").household
        try write("log the identification") { db in
            try db.execute(
                sql: """
                    INSERT INTO identificationRun (householdId, ranAt, strategy, source, cacheHit, apiCalled, remainingRequests, timings)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [household, run.date.roundedToMilliseconds, run.strategy, run.source.rawValue, run.cacheHit, run.apiCalled,
                            run.remainingRequests.map { max($0, 0) }, timings]
            )
            // The household's runs beyond the count (ids only grow, so the newest are those with the highest ids) or age.
            try db.execute(
                sql: """
                    DELETE FROM identificationRun WHERE householdId = ?1 AND (ranAt < ?2 OR id <= (
                        SELECT id FROM identificationRun WHERE householdId = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?3))
                    """,
                arguments: [household, now.addingTimeInterval(-retention.maximumAge), max(retention.maximumCount, 1)]
            )
        }
    }

    /// The last `count` identifications logged, newest first.
    public func identificationRuns(last count: Int) throws(StoreError) -> [IdentificationRun] {
        let household = try self.scope("read the identification log").household
        guard count > 0 else { throw .invalid("Ask for at least 1 identification (not \(count)).") }
        return try read("read the identification log") { db in
            try Row.fetchAll(
                db, sql: """
                    SELECT ranAt, strategy, source, cacheHit, apiCalled, remainingRequests, timings FROM identificationRun
                    WHERE householdId = ? ORDER BY id DESC LIMIT ?
                    """,
                arguments: [household, count]
            ).map { row in
                guard let source = IdentificationSource(rawValue: row[2]) else {
                    throw StoreError.invalid("an identification in the log has an unknown source")
                }
                return IdentificationRun(
                    date: DatabaseTimestamp.date(row, 0), strategy: row[1], source: source, cacheHit: row[3], apiCalled: row[4],
                    remainingRequests: row[5], timings: StageTimingsColumn.decode(row[6])
                )
            }
        }
    }

    /// Pl@ntNet use per UTC day (the quota resets at 00:00 UTC) over the `days` days up to and including `now`'s,
    /// newest first, from the identification log of every household (the quota is the installation's): answers Pl@ntNet gave, answers the cache gave instead, and the
    /// fewest identifications Pl@ntNet said were left. Days without identifications are left out.
    public func plantNetUsePerDay(days: Int, now: Date) throws(StoreError) -> [IdentificationStatistics.QuotaDay] {
        guard days > 0 else { throw .invalid("Ask for at least 1 day (not \(days)).") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let firstDay = calendar.date(byAdding: .day, value: -(days - 1), to: calendar.startOfDay(for: now)) ?? now
        return try read("read the identification log") { db in
            try Row.fetchAll(
                db, sql: """
                    SELECT date(ranAt) AS day, SUM(apiCalled), SUM(cacheHit), MIN(remainingRequests) FROM identificationRun
                    WHERE ranAt >= ? GROUP BY day ORDER BY day DESC
                    """,
                arguments: [firstDay]
            ).map { row in
                IdentificationStatistics.QuotaDay(day: row[0], apiCalls: row[1], cacheHits: row[2], lowestRemaining: row[3])
            }
        }
    }

    /// The statistics over the last `last` identifications, with Pl@ntNet use per day over the last `days` days.
    public func identificationStatistics(last: Int, days: Int = 30, now: Date) throws(StoreError) -> IdentificationStatistics {
        let runs = try identificationRuns(last: last)
        return IdentificationStatistics(runs: runs, last: last, quotaPerDay: try plantNetUsePerDay(days: days, now: now))
    }
}
