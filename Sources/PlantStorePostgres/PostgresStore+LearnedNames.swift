import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// The names learned from Pl@ntNet on PostgreSQL: the twin of `CollectionDatabase+LearnedNames`.
extension PostgresStore {
    public func recordLearnedSpecies(_ species: [LearnedSpecies]) async throws(StoreError) {
        guard !species.isEmpty else { return }
        var rows: [(key: String, item: LearnedSpecies, names: String)] = []
        for item in species {
            let key = LearnedSpecies.key(for: item.binomial)
            guard !key.isEmpty else { continue }
            do {
                rows.append((key, item, String(decoding: try JSONEncoder().encode(item.commonNames), as: UTF8.self)))
            } catch {
                throw .invalid("The names Pl@ntNet gave could not be stored (\(error)).")
            }
        }
        guard !rows.isEmpty else { return }
        try await inTransaction("remember the names Pl@ntNet gave") { connection in
            for (key, item, names) in rows {
                try await connection.query("""
                    INSERT INTO learnedSpecies
                        (speciesKey, language, binomial, commonNames, family, gbifId, powoId, learnedAt)
                    VALUES (\(key), \(item.language), \(item.binomial), \(names), \(item.family), \(item.gbifId),
                        \(item.powoId), \(PostgresInstant(item.learnedAt)))
                    ON CONFLICT (speciesKey, language) DO UPDATE SET binomial = excluded.binomial,
                        commonNames = CASE WHEN json_array_length(excluded.commonNames::json) > 0
                            THEN excluded.commonNames ELSE learnedSpecies.commonNames END,
                        family = coalesce(excluded.family, learnedSpecies.family),
                        gbifId = coalesce(excluded.gbifId, learnedSpecies.gbifId),
                        powoId = coalesce(excluded.powoId, learnedSpecies.powoId),
                        learnedAt = excluded.learnedAt
                    """, logger: self.logger)
            }
        }
    }

    public func learnedSpecies(named names: [String]) async throws(StoreError) -> [String: [LearnedSpecies]] {
        let asked = Set(names)
        guard !asked.isEmpty else { return [:] }
        let keys = Array(Set(asked.map(LearnedSpecies.key(for:)))).sorted()
        // One statement for every name: the rows of each key, newest first.
        let byKey: [String: [LearnedSpecies]] = try await withConnection("read the names Pl@ntNet gave") { connection in
            let rows = try await connection.query("""
                SELECT speciesKey, binomial, language, commonNames, family, gbifId, powoId, learnedAt FROM learnedSpecies
                WHERE speciesKey = ANY(\(keys)) ORDER BY speciesKey, learnedAt DESC, language COLLATE "C"
                """, logger: self.logger)
            var found: [String: [LearnedSpecies]] = [:]
            for try await (key, binomial, language, commonNames, family, gbifId, powoId, learnedAt)
                in rows.decode((String, String, String, String, String?, String?, String?, PostgresInstant).self) {
                let names = (try? JSONDecoder().decode([String].self, from: Data(commonNames.utf8))) ?? []
                found[key, default: []].append(LearnedSpecies(
                    binomial: binomial, language: language, commonNames: names, family: family, gbifId: gbifId, powoId: powoId,
                    learnedAt: learnedAt.date
                ))
            }
            return found
        }
        var found: [String: [LearnedSpecies]] = [:]
        for name in asked {
            if let learned = byKey[LearnedSpecies.key(for: name)], !learned.isEmpty { found[name] = learned }
        }
        return found
    }
}
