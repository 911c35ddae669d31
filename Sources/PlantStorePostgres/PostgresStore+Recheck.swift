import Foundation
import Logging
import PlantGuideCore
import PlantStore
import PostgresNIO

/// The re-check queue, re-scoring and species suggestions on PostgreSQL: the twin of `CollectionDatabase+Recheck`.
///
/// Replicas drain the same queue. A claim is one `UPDATE … WHERE` that re-checks the lease on the row's newest version
/// (READ COMMITTED re-evaluates the condition after waiting for a concurrent writer), so two replicas never both hold
/// an item; completing, failing and expiring lock the item's row first, so an answer is filed once.
extension PostgresStore: HistoryStore {
    // MARK: - Reading the queue

    public func queuedRechecks(now: Date, limit: Int?) async throws(StoreError) -> [RecheckItem] {
        let household = try scope("read the re-check queue").household
        return try await inSnapshot("read the re-check queue") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.itemColumns) FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE i.householdId = \(household) AND r.state = 'queued' AND (r.expiresAt IS NULL OR r.expiresAt > \(PostgresInstant(now)))
                ORDER BY i.plantId IS NULL, r.queuedAt, r.id LIMIT \(limit.map { max(0, $0) })
                """, logger: self.logger)
            return try await self.items(rows, on: connection)
        }
    }

    public func queuedRecheckCount(now: Date) async throws(StoreError) -> Int {
        let household = try scope("count the re-check queue").household
        return try await withConnection("count the re-check queue") { connection in
            let rows = try await connection.query("""
                SELECT count(*) FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE i.householdId = \(household) AND r.state = 'queued' AND (r.expiresAt IS NULL OR r.expiresAt > \(PostgresInstant(now)))
                """, logger: self.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    public func rechecks(limit: Int?) async throws(StoreError) -> [RecheckItem] {
        let household = try scope("read the re-check queue").household
        return try await inSnapshot("read the re-check queue") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.itemColumns) FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE i.householdId = \(household)
                ORDER BY r.queuedAt DESC, r.id DESC LIMIT \(limit.map { max(0, $0) })
                """, logger: self.logger)
            return try await self.items(rows, on: connection)
        }
    }

    public func recheck(ofIdentification identificationId: Int64) async throws(StoreError) -> RecheckItem? {
        try await rechecks(ofIdentifications: [identificationId])[identificationId]
    }

    public func rechecks(ofIdentifications ids: [Int64]) async throws(StoreError) -> [Int64: RecheckItem] {
        let household = try scope("read re-checks").household
        guard !ids.isEmpty else { return [:] }
        return try await inSnapshot("read re-checks") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.itemColumns) FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE r.identificationId = ANY(\(ids)) AND i.householdId = \(household) ORDER BY r.id
                """, logger: self.logger)
            let items = try await self.items(rows, on: connection)
            return Dictionary(items.map { ($0.identificationId, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public func recheckSummary() async throws(StoreError) -> RecheckSummary {
        let household = try scope("count the re-check queue").household
        return try await withConnection("count the re-check queue") { connection in
            let rows = try await connection.query("""
                SELECT count(*) FILTER (WHERE r.state = 'queued'), count(*) FILTER (WHERE r.state = 'done'),
                    count(*) FILTER (WHERE r.state = 'failed'), count(*) FILTER (WHERE r.state = 'expired'),
                    (SELECT count(*) FROM speciesSuggestion s JOIN plant p ON p.id = s.plantId
                     WHERE s.resolution IS NULL AND p.householdId = \(household))
                FROM recheck r JOIN identification i ON i.id = r.identificationId WHERE i.householdId = \(household)
                """, logger: self.logger)
            for try await (queued, done, failed, expired, open) in rows.decode((Int, Int, Int, Int, Int).self) {
                return RecheckSummary(queued: queued, done: done, failed: failed, expired: expired, openSuggestions: open)
            }
            return RecheckSummary(queued: 0, done: 0, failed: 0, expired: 0, openSuggestions: 0)
        }
    }

    /// The `recheck r JOIN identification i` columns ``items(_:on:)`` reads.
    private static let itemColumns = """
        r.id, r.identificationId, i.plantId, r.reason, r.state, r.queuedAt, r.expiresAt, r.attempts, r.lastError, r.resultId,
        r.finishedAt
        """

    /// Items from rows of ``itemColumns``, with their photos (read in one more statement).
    private func items(_ rows: PostgresRowSequence, on connection: PostgresConnection) async throws -> [RecheckItem] {
        var items: [RecheckItem] = []
        typealias ItemRow = (
            Int64, Int64, Int64?, String, String, PostgresInstant, PostgresInstant?, Int, String?, Int64?, PostgresInstant?
        )
        for try await (id, identificationId, plantId, reason, state, queuedAt, expiresAt, attempts, lastError, resultId, finishedAt)
            in rows.decode(ItemRow.self) {
            guard let reason = RecheckReason(rawValue: reason), let state = RecheckState(rawValue: state) else {
                throw StoreError.invalid("re-check \(id) has an unknown reason or state")
            }
            items.append(RecheckItem(
                id: id, identificationId: identificationId, plantId: plantId, reason: reason, state: state,
                queuedAt: queuedAt.date, expiresAt: expiresAt?.date, attempts: attempts, lastError: lastError, resultId: resultId,
                finishedAt: finishedAt?.date,
                photos: []
            ))
        }
        guard !items.isEmpty else { return [] }
        let photoRows = try await connection.query("""
            SELECT recheckId, photoSHA256, organ FROM recheckPhoto WHERE recheckId = ANY(\(items.map(\.id)))
            ORDER BY recheckId, position
            """, logger: logger)
        var photos: [Int64: [RecheckPhoto]] = [:]
        for try await (recheckId, sha256, organ) in photoRows.decode((Int64, String, String).self) {
            photos[recheckId, default: []].append(RecheckPhoto(sha256: sha256, organ: organ))
        }
        return items.map { item in
            var item = item
            item.photos = photos[item.id] ?? []
            return item
        }
    }

    // MARK: - Draining

    public func claimRecheck(_ id: Int64, now: Date, lease: TimeInterval, claimant: String) async throws(StoreError) -> Bool {
        let owned = Self.recheckOwned(by: try scope("claim a re-check").household)
        return try await inTransaction("claim a re-check") { connection in
            try await self.takeLease(
                of: "recheck", id: id, where: "state = 'queued' AND \(owned)", now: now, lease: lease, claimant: claimant,
                on: connection
            )
        }
    }

    /// Takes the lease of row `id` of `table` (a re-check or a health record that waits) while it meets `condition`,
    /// counting a try, unless a live process other than `claimant` holds an unexpired one. One statement, so of replicas
    /// racing only one wins; a live lease of a process on this host that died (killed mid-send) ends at once, as on
    /// SQLite.
    func takeLease(
        of table: String, id: Int64, where condition: String, now: Date, lease: TimeInterval, claimant: String,
        on connection: PostgresConnection
    ) async throws -> Bool {
        let until = PostgresInstant(now.addingTimeInterval(lease)), now = PostgresInstant(now)
        let claimed = try await returnsRow(connection.query("""
            UPDATE \(unescaped: table) SET claimedUntil = \(until), claimedBy = \(claimant), attempts = attempts + 1
            WHERE id = \(id) AND \(unescaped: condition)
                AND (claimedUntil IS NULL OR claimedUntil <= \(now) OR claimedBy IS NULL OR claimedBy = \(claimant))
            RETURNING 1
            """, logger: logger))
        if claimed { return true }
        // Taken over only while that process still holds it, so of two replicas noticing only one takes it.
        var holder: String?
        for try await name in try await connection.query(
            "SELECT claimedBy FROM \(unescaped: table) WHERE id = \(id) AND \(unescaped: condition)", logger: logger
        ).decode(String?.self) {
            holder = name
        }
        guard let holder, !ProcessIdentity.isAlive(holder) else { return false }
        return try await returnsRow(connection.query("""
            UPDATE \(unescaped: table) SET claimedUntil = \(until), claimedBy = \(claimant), attempts = attempts + 1
            WHERE id = \(id) AND \(unescaped: condition) AND claimedBy = \(holder)
            RETURNING 1
            """, logger: logger))
    }

    public func releaseRecheck(_ id: Int64) async throws(StoreError) {
        let owned = Self.recheckOwned(by: try scope("release a re-check").household)
        try await inTransaction("release a re-check") { connection in
            _ = try await connection.query("""
                UPDATE recheck SET claimedUntil = NULL, claimedBy = NULL, attempts = greatest(attempts - 1, 0)
                WHERE id = \(id) AND state = 'queued' AND \(unescaped: owned)
                """, logger: self.logger)
        }
    }

    @discardableResult
    public func failRecheck(_ id: Int64, reason: String, now: Date) async throws(StoreError) -> [StoredPhoto] {
        let owned = Self.recheckOwned(by: try scope("record a failed re-check").household)
        let limit = StorePolicy.recheckAttemptLimit
        return try await inTransaction("record a failed re-check") { connection in
            let rows = try await connection.query("""
                UPDATE recheck SET claimedUntil = NULL, claimedBy = NULL, lastError = \(String(reason.prefix(500))),
                    state = CASE WHEN attempts >= \(limit) THEN 'failed' ELSE 'queued' END,
                    finishedAt = CASE WHEN attempts >= \(limit) THEN \(PostgresInstant(now)) ELSE NULL END
                WHERE id = \(id) AND state = 'queued' AND \(unescaped: owned)
                RETURNING state
                """, logger: self.logger)
            var state: String?
            for try await value in rows.decode(String.self) { state = value }
            return state == "failed" ? try await self.releasePhotos(ofRecheck: id, on: connection) : []
        }
    }

    public func completeRecheck(_ id: Int64, answer: Identification, now: Date) async throws(StoreError) -> RecheckCompletion? {
        let household = try scope("record a re-check's answer").household
        let now = now.roundedToMilliseconds
        var answer = answer
        answer.date = answer.date.roundedToMilliseconds
        let recorded = answer
        return try await inTransaction("record a re-check's answer") { connection -> RecheckCompletion? in
            // The item's row lock: a replica recording the same answer waits, then finds it no longer queued.
            let rows = try await connection.query("""
                SELECT r.identificationId,
                    (SELECT photoSHA256 FROM recheckPhoto WHERE recheckId = r.id ORDER BY position LIMIT 1)
                FROM recheck r WHERE r.id = \(id) AND r.state = 'queued' AND \(unescaped: Self.recheckOwned(by: household, alias: "r"))
                FOR UPDATE
                """, logger: self.logger)
            var found: (Int64, String?)?
            for try await row in rows.decode((Int64, String?).self) { found = row }
            guard let (identificationId, firstPhoto) = found,
                let original = try await Self.identification(
                    id: identificationId, household: household, on: connection, logger: self.logger
                )
            else { return nil }
            // The answer keeps its photo only where the plant keeps it too; an unsaved identification's photos go.
            var keepsPhoto = false
            if let plantId = original.plantId, let firstPhoto {
                keepsPhoto = try await self.returnsRow(connection.query("""
                    SELECT 1 FROM plantPhoto WHERE plantId = \(plantId) AND photoSHA256 = \(firstPhoto)
                    """, logger: self.logger))
            }
            var result = FiledIdentification(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: original.plantId,
                photoSHA256: keepsPhoto ? firstPhoto : nil, identification: recorded, chosenSpecies: nil,
                recheckOf: original.id
            )
            result.id = try await Self.insertIdentification(result, household: household, on: connection, logger: self.logger)
            try await connection.query("""
                UPDATE recheck SET state = 'done', resultId = \(result.id), finishedAt = \(PostgresInstant(now)),
                    claimedUntil = NULL, claimedBy = NULL, lastError = NULL
                WHERE id = \(id)
                """, logger: self.logger)
            let suggestion = try await self.suggest(.recheck, answer: result, previous: original, now: now, on: connection)
            let released = try await self.releasePhotos(ofRecheck: id, on: connection)
            return RecheckCompletion(result: result, suggestion: suggestion, releasedPhotos: released)
        }
    }

    public func expireRechecks(now: Date) async throws(StoreError) -> (expired: Int, released: [StoredPhoto]) {
        let owned = Self.recheckOwned(by: try scope("expire old re-checks").household)
        return try await inTransaction("expire old re-checks") { connection in
            let rows = try await connection.query("""
                UPDATE recheck SET state = 'expired', finishedAt = \(PostgresInstant(now)), claimedUntil = NULL,
                    claimedBy = NULL
                WHERE \(unescaped: owned) AND state = 'queued' AND expiresAt IS NOT NULL AND expiresAt <= \(PostgresInstant(now))
                RETURNING id
                """, logger: self.logger)
            var ids: [Int64] = []
            for try await id in rows.decode(Int64.self) { ids.append(id) }
            var released: [StoredPhoto] = []
            for id in ids.sorted() { released += try await self.releasePhotos(ofRecheck: id, on: connection) }
            return (ids.count, released)
        }
    }

    /// Drops an item's photo links and deletes the records of photos nothing else uses, on `connection` in the caller's
    /// transaction.
    private func releasePhotos(ofRecheck id: Int64, on connection: PostgresConnection) async throws -> [StoredPhoto] {
        let rows = try await connection.query(
            "DELETE FROM recheckPhoto WHERE recheckId = \(id) RETURNING photoSHA256", logger: logger
        )
        var shas: Set<String> = []
        for try await sha in rows.decode(String.self) { shas.insert(sha) }
        return try await Self.releaseUnusedPhotos(shas.sorted(), on: connection, logger: logger)
    }

    public func adoptRecheck(from unsavedId: Int64, to filedId: Int64) async throws(StoreError) {
        let household = try scope("move a re-check to a saved plant").household
        try await inTransaction("move a re-check to a saved plant") { connection in
            let targets = try await connection.query(
                "SELECT plantId FROM identification WHERE id = \(filedId) AND householdId = \(household) FOR UPDATE",
                logger: self.logger
            )
            var targetPlant: Int64?
            for try await plantId in targets.decode(Int64?.self) { targetPlant = plantId }
            guard let targetPlant else {
                throw StoreError.invalid("Identification \(filedId) is not filed under a plant.")
            }
            let sources = try await connection.query("""
                SELECT plantId IS NULL AND NOT EXISTS (SELECT 1 FROM recheck WHERE identificationId = \(filedId))
                FROM identification WHERE id = \(unsavedId) AND householdId = \(household) FOR UPDATE
                """, logger: self.logger)
            var adoptable = false
            for try await value in sources.decode(Bool.self) { adoptable = value }
            guard adoptable else { return }
            try await connection.query(
                "UPDATE recheck SET identificationId = \(filedId), expiresAt = NULL WHERE identificationId = \(unsavedId)",
                logger: self.logger
            )
            try await connection.query(
                "UPDATE identification SET recheckOf = \(filedId), plantId = \(targetPlant) WHERE recheckOf = \(unsavedId)",
                logger: self.logger
            )
            try await connection.query("DELETE FROM identification WHERE id = \(unsavedId)", logger: self.logger)
        }
    }

    /// `household`'s identification with this id, read on `connection`.
    static func identification(id: Int64, household: Int64, on connection: PostgresConnection, logger: Logger) async throws
        -> FiledIdentification? {
        try await identifications(connection.query("""
            SELECT \(unescaped: identificationColumns) FROM identification WHERE id = \(id) AND householdId = \(household)
            """, logger: logger)).first
    }

    /// The condition (on `recheck`, or the alias given) that a re-check is of an identification of `household` (an
    /// integer, written as a literal).
    static func recheckOwned(by household: Int64, alias: String = "recheck") -> String {
        "EXISTS (SELECT 1 FROM identification oi WHERE oi.id = \(alias).identificationId AND oi.householdId = \(household))"
    }

    /// Whether a query returned at least one row.
    func returnsRow(_ rows: PostgresRowSequence) async throws -> Bool {
        var any = false
        for try await _ in rows { any = true }
        return any
    }
}

// MARK: - Re-scoring and suggestions

extension PostgresStore {
    public func rescoreCandidates(model: String) async throws(StoreError) -> [RescoreCandidate] {
        let household = try scope("find identifications to re-score").household
        return try await inSnapshot("find identifications to re-score") { connection in
            let rows = try await connection.query("""
                SELECT i.id, p.id,
                    coalesce(i.photoSHA256,
                        (SELECT rp.photoSHA256 FROM recheck r JOIN recheckPhoto rp ON rp.recheckId = r.id
                         WHERE r.identificationId = i.id ORDER BY rp.position LIMIT 1),
                        (SELECT photoSHA256 FROM plantPhoto WHERE plantId = p.id ORDER BY isCover DESC, addedAt LIMIT 1))
                FROM plant p JOIN identification i ON i.id = (
                    SELECT id FROM identification WHERE plantId = p.id AND source = 'onDevice'
                    ORDER BY identifiedAt DESC, id DESC LIMIT 1)
                WHERE p.householdId = \(household) AND i.model IS DISTINCT FROM \(model)
                ORDER BY p.id
                """, logger: self.logger)
            var found: [(identificationId: Int64, plantId: Int64, photo: String)] = []
            for try await (identificationId, plantId, photo) in rows.decode((Int64, Int64, String?).self) {
                if let photo { found.append((identificationId, plantId, photo)) }
            }
            var candidates: [RescoreCandidate] = []
            for entry in found {
                guard let plant = try await Self.plant(id: entry.plantId, household: household, on: connection, logger: self.logger),
                    let identification = try await Self.identification(
                        id: entry.identificationId, household: household, on: connection, logger: self.logger
                    )
                else { continue }
                candidates.append(RescoreCandidate(plant: plant, identification: identification, photoSHA256: entry.photo))
            }
            return candidates
        }
    }

    public func fileRescore(_ answer: Identification, of original: FiledIdentification, photoSHA256: String, now: Date)
        async throws(StoreError) -> (result: FiledIdentification, suggestion: SpeciesSuggestion?) {
        let household = try scope("file a re-scoring").household
        let now = now.roundedToMilliseconds
        var answer = answer
        answer.date = answer.date.roundedToMilliseconds
        let recorded = answer
        return try await inTransaction("file a re-scoring") { connection in
            guard let plantId = original.plantId,
                try await self.returnsRow(connection.query(
                    "SELECT 1 FROM plant WHERE id = \(plantId) AND householdId = \(household)", logger: self.logger
                )),
                // The re-scored identification must be this household's too, as on SQLite.
                try await self.returnsRow(connection.query(
                    "SELECT 1 FROM identification WHERE id = \(original.id) AND householdId = \(household)", logger: self.logger
                ))
            else {
                throw StoreError.invalid("Identification \(original.id) is not filed under a plant.")
            }
            let photoKept = try await self.returnsRow(
                connection.query("SELECT 1 FROM photo WHERE sha256 = \(photoSHA256) FOR KEY SHARE", logger: self.logger)
            )
            var result = FiledIdentification(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: plantId, photoSHA256: photoKept ? photoSHA256 : nil,
                identification: recorded, chosenSpecies: nil, recheckOf: original.id
            )
            result.id = try await Self.insertIdentification(result, household: household, on: connection, logger: self.logger)
            return (result, try await self.suggest(.rescore, answer: result, previous: original, now: now, on: connection))
        }
    }

    /// Makes a suggestion when `answer`'s best species differs from its plant's current species (``SuggestionRule``),
    /// superseding the plant's open one. The plant's row is locked first, so two answers for one plant never both leave
    /// an open suggestion.
    private func suggest(
        _ kind: SpeciesSuggestion.Kind, answer: FiledIdentification, previous: FiledIdentification, now: Date,
        on connection: PostgresConnection
    ) async throws -> SpeciesSuggestion? {
        guard let plantId = answer.plantId else { return nil }
        let plants = try await connection.query(
            "SELECT species FROM plant WHERE id = \(plantId) FOR NO KEY UPDATE", logger: logger
        )
        var plantSpecies: String??
        for try await species in plants.decode(String?.self) { plantSpecies = .some(species) }
        guard let plantSpecies,
            let proposal = SuggestionRule.proposal(answer: answer.identification, previous: previous, plantSpecies: plantSpecies)
        else { return nil }
        try await connection.query("""
            UPDATE speciesSuggestion SET resolution = 'superseded', resolvedAt = \(PostgresInstant(now))
            WHERE plantId = \(plantId) AND resolution IS NULL
            """, logger: logger)
        let previousBest = previous.identification.best
        let rows = try await connection.query("""
            INSERT INTO speciesSuggestion (plantId, kind, identificationId, previousIdentificationId, currentSpecies,
                previousSpecies, previousConfidence, previousModel, suggestedSpecies, confidence, model, createdAt)
            VALUES (\(plantId), \(kind.rawValue), \(answer.id), \(previous.id), \(proposal.currentSpecies),
                \(previousBest?.scientificName), \(previousBest.map { SuggestionRule.clamped($0.confidence) }),
                \(previous.identification.model), \(proposal.best.scientificName),
                \(SuggestionRule.clamped(proposal.best.confidence)),
                \(answer.identification.model), \(PostgresInstant(now)))
            RETURNING \(unescaped: Self.suggestionColumns)
            """, logger: logger)
        return try await Self.suggestions(rows).first
    }

    public func suggestions(plantId: Int64?, includeResolved: Bool) async throws(StoreError) -> [SpeciesSuggestion] {
        let household = try scope("read species suggestions").household
        return try await withConnection("read species suggestions") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.suggestionColumns) FROM speciesSuggestion
                WHERE \(unescaped: Self.suggestionOwned(by: household)) AND (\(plantId)::bigint IS NULL OR plantId = \(plantId)) AND (\(includeResolved) OR resolution IS NULL)
                ORDER BY createdAt DESC, id DESC
                """, logger: self.logger)
            return try await Self.suggestions(rows)
        }
    }

    public func suggestion(id: Int64) async throws(StoreError) -> SpeciesSuggestion? {
        let household = try scope("read a species suggestion").household
        return try await withConnection("read a species suggestion") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.suggestionColumns) FROM speciesSuggestion
                WHERE id = \(id) AND \(unescaped: Self.suggestionOwned(by: household))
                """, logger: self.logger)
            return try await Self.suggestions(rows).first
        }
    }

    @discardableResult
    public func resolveSuggestion(_ id: Int64, accept: Bool, species: String?, profile: CareProfile?, now: Date)
        async throws(StoreError) -> SpeciesSuggestion {
        let household = try scope("settle a species suggestion").household
        let now = now.roundedToMilliseconds
        return try await inTransaction("settle a species suggestion") { connection in
            // The suggestion's row lock: of two replicas settling it, the second finds it settled.
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.suggestionColumns) FROM speciesSuggestion
                WHERE id = \(id) AND \(unescaped: Self.suggestionOwned(by: household)) FOR UPDATE
                """, logger: self.logger)
            guard let suggestion = try await Self.suggestions(rows).first else {
                throw StoreError.invalid(
                    "No species suggestion with id \(id). `plantguide recheck list` shows the open ones."
                )
            }
            guard suggestion.resolution == nil else {
                throw StoreError.invalid("Suggestion \(id) was already \(suggestion.resolution?.rawValue ?? "settled").")
            }
            if accept {
                guard let plant = try await Self.plant(
                    id: suggestion.plantId, household: household, lock: "FOR NO KEY UPDATE", on: connection, logger: self.logger
                ) else { throw StoreError.plantNotFound(suggestion.plantId) }
                let accepted = SuggestionRule.accepting(suggestion, species: species, plant: plant, now: now)
                try await connection.query("""
                    UPDATE plant SET name = \(accepted.name), species = \(accepted.species),
                        updatedAt = \(PostgresInstant(accepted.updatedAt))
                    WHERE id = \(plant.id)
                    """, logger: self.logger)
                if let profile { try await Self.setProfile(profile, plantId: plant.id, on: connection, logger: self.logger) }
                // Taking the suggestion confirms the species: the plant's photos become exemplars of it.
                try await Self.recordConfirmation(
                    SpeciesConfirmation(species: accepted.species ?? suggestion.suggestedSpecies, source: .identification),
                    plantId: plant.id, at: now, on: connection, logger: self.logger
                )
                try await connection.query("""
                    UPDATE identification SET chosenSpecies = \(suggestion.suggestedSpecies)
                    WHERE id = \(suggestion.identificationId)
                    """, logger: self.logger)
            }
            try await connection.query("""
                UPDATE speciesSuggestion
                SET resolution = \(accept ? "accepted" : "dismissed"), resolvedAt = \(PostgresInstant(now))
                WHERE id = \(id)
                """, logger: self.logger)
            var settled = suggestion
            settled.resolution = accept ? .accepted : .dismissed
            settled.resolvedAt = now
            return settled
        }
    }

    /// The condition (on `speciesSuggestion`) that a suggestion is for a plant of `household` (an integer, written as a
    /// literal).
    private static func suggestionOwned(by household: Int64) -> String {
        "EXISTS (SELECT 1 FROM plant sp WHERE sp.id = speciesSuggestion.plantId AND sp.householdId = \(household))"
    }

    /// The `speciesSuggestion` columns ``suggestions(_:)`` reads.
    private static let suggestionColumns = """
        id, plantId, kind, identificationId, previousIdentificationId, currentSpecies, previousSpecies, previousConfidence,
        previousModel, suggestedSpecies, confidence, model, createdAt, resolution, resolvedAt
        """

    private static func suggestions(_ rows: PostgresRowSequence) async throws -> [SpeciesSuggestion] {
        var suggestions: [SpeciesSuggestion] = []
        for try await (id, plantId, kind, identificationId, previousId, currentSpecies, previousSpecies, previousConfidence,
            previousModel, suggested, confidence, model, createdAt, resolution, resolvedAt)
            in rows.decode(
                (Int64, Int64, String, Int64, Int64?, String?, String?, Double?, String?, String, Double, String?,
                    PostgresInstant, String?, PostgresInstant?)
                    .self
            ) {
            guard let kind = SpeciesSuggestion.Kind(rawValue: kind) else {
                throw StoreError.invalid("suggestion \(id) has an unknown kind")
            }
            suggestions.append(SpeciesSuggestion(
                id: id, plantId: plantId, kind: kind, identificationId: identificationId, previousIdentificationId: previousId,
                currentSpecies: currentSpecies, previousSpecies: previousSpecies, previousConfidence: previousConfidence,
                previousModel: previousModel, suggestedSpecies: suggested, confidence: confidence, model: model,
                createdAt: createdAt.date, resolution: resolution.flatMap(SpeciesSuggestion.Resolution.init(rawValue:)),
                resolvedAt: resolvedAt?.date
            ))
        }
        return suggestions
    }
}
