import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Stores what Pl@ntNet said about some species, replacing what an earlier answer said about the same
    /// species in the same language (an answer without names or ids keeps the known ones); all in one transaction.
    public func recordLearnedSpecies(_ species: [LearnedSpecies]) throws(StoreError) {
        guard !species.isEmpty else { return }
        try write("remember the names Pl@ntNet gave") { db in
            for item in species {
                let key = LearnedSpecies.key(for: item.binomial)
                guard !key.isEmpty else { continue }
                let names = String(decoding: try JSONEncoder().encode(item.commonNames), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO learnedSpecies (speciesKey, language, binomial, commonNames, family, gbifId, powoId, learnedAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (speciesKey, language) DO UPDATE SET binomial = excluded.binomial,
                            commonNames = CASE WHEN json_array_length(excluded.commonNames) > 0
                                THEN excluded.commonNames ELSE commonNames END, family = coalesce(excluded.family, family),
                            gbifId = coalesce(excluded.gbifId, gbifId), powoId = coalesce(excluded.powoId, powoId),
                            learnedAt = excluded.learnedAt
                        """,
                    arguments: [key, item.language, item.binomial, names, item.family, item.gbifId, item.powoId,
                                item.learnedAt.roundedToMilliseconds]
                )
            }
        }
    }

    /// Everything learned about one species (any spelling, authorship ignored), newest first.
    public func learnedSpecies(named name: String) throws(StoreError) -> [LearnedSpecies] {
        try read("read the names Pl@ntNet gave") { db in try Self.learnedSpecies(named: name, db: db) }
    }

    /// Everything learned about each of these species, by the name asked with, in one read.
    public func learnedSpecies(named names: [String]) throws(StoreError) -> [String: [LearnedSpecies]] {
        try read("read the names Pl@ntNet gave") { db in
            var found: [String: [LearnedSpecies]] = [:]
            for name in Set(names) {
                let learned = try Self.learnedSpecies(named: name, db: db)
                if !learned.isEmpty { found[name] = learned }
            }
            return found
        }
    }

    private static func learnedSpecies(named name: String, db: Database) throws -> [LearnedSpecies] {
        try Row.fetchAll(
            db, sql: """
                SELECT binomial, language, commonNames, family, gbifId, powoId, learnedAt FROM learnedSpecies
                WHERE speciesKey = ? ORDER BY learnedAt DESC, language
                """,
            arguments: [LearnedSpecies.key(for: name)]
        ).map { row in
            let names = (try? JSONDecoder().decode([String].self, from: Data((row[2] as String).utf8))) ?? []
            return LearnedSpecies(
                binomial: row[0], language: row[1], commonNames: names, family: row[3], gbifId: row[4], powoId: row[5],
                learnedAt: DatabaseTimestamp.date(row, 6)
            )
        }
    }
}
