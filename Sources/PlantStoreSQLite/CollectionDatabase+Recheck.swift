import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Queues an identification for a re-check, with its photos; called inside ``fileIdentification`` so the record and
    /// its place in the queue are written in one transaction.
    static func queueRecheck(
        _ request: RecheckRequest, identificationId: Int64, saved: Bool, now: Date, db: Database
    ) throws {
        guard !request.photos.isEmpty else { throw StoreError.invalid("A re-check needs at least one photo.") }
        let expires: Date? = saved ? nil : now.addingTimeInterval(StorePolicy.unsavedRecheckLifetime)
        try db.execute(
            sql: "INSERT INTO recheck (identificationId, reason, queuedAt, expiresAt) VALUES (?, ?, ?, ?)",
            arguments: [identificationId, request.reason.rawValue, now, expires]
        )
        let recheckId = db.lastInsertedRowID
        for (position, entry) in request.photos.enumerated() {
            try recordPhoto(entry.photo, db: db)
            try db.execute(
                sql: "INSERT INTO recheckPhoto (recheckId, position, photoSHA256, organ) VALUES (?, ?, ?, ?)",
                arguments: [recheckId, position, entry.photo.sha256, entry.organ]
            )
        }
    }

    // MARK: - Reading the queue

    /// Items still waiting, in the order they are sent: those of saved plants first, then oldest first. Items
    /// another process has claimed and not finished are included (a dry run shows them); see ``claimRecheck``.
    public func queuedRechecks(now: Date, limit: Int? = nil) throws(StoreError) -> [RecheckItem] {
        let household = try self.scope("read the re-check queue").household
        return try read("read the re-check queue") { db in
            try Self.items(db, household: household, where: Self.waiting, arguments: [now], order: "i.plantId IS NULL, r.queuedAt, r.id", limit: limit)
        }
    }

    /// How many items ``queuedRechecks(now:limit:)`` would return, counted without reading them and their photos.
    public func queuedRecheckCount(now: Date) throws(StoreError) -> Int {
        let household = try self.scope("count the re-check queue").household
        return try read("count the re-check queue") { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE i.householdId = ? AND \(Self.waiting)
                """, arguments: [household, now]) ?? 0
        }
    }

    /// Items still waiting and not expired at the time given as the one argument (`r` is the `recheck` table).
    private static let waiting = "r.state = 'queued' AND (r.expiresAt IS NULL OR r.expiresAt > ?)"

    /// Every item of the queue, newest first, in any state.
    public func rechecks(limit: Int? = nil) throws(StoreError) -> [RecheckItem] {
        let household = try self.scope("read the re-check queue").household
        return try read("read the re-check queue") { db in
            try Self.items(db, household: household, where: "1", arguments: [], order: "r.queuedAt DESC, r.id DESC", limit: limit)
        }
    }

    /// The queue item of an identification, if it was ever queued.
    public func recheck(ofIdentification identificationId: Int64) throws(StoreError) -> RecheckItem? {
        let household = try self.scope("read a re-check").household
        return try read("read a re-check") { db in
            try Self.items(db, household: household, where: "r.identificationId = ?", arguments: [identificationId], order: "r.id", limit: 1).first
        }
    }

    /// The queue items of many identifications at once, by identification id.
    public func rechecks(ofIdentifications ids: [Int64]) throws(StoreError) -> [Int64: RecheckItem] {
        let household = try self.scope("read re-checks").household
        guard !ids.isEmpty else { return [:] }
        return try read("read re-checks") { db in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let items = try Self.items(
                db, household: household, where: "r.identificationId IN (\(marks))", arguments: StatementArguments(ids), order: "r.id", limit: nil
            )
            return Dictionary(items.map { ($0.identificationId, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Counts by state.
    public func recheckSummary() throws(StoreError) -> RecheckSummary {
        let household = try self.scope("count the re-check queue").household
        return try read("count the re-check queue") { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT r.state, COUNT(*) AS n FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE i.householdId = ? GROUP BY r.state
                """, arguments: [household]) {
                counts[row["state"]] = row["n"]
            }
            let open = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM speciesSuggestion s JOIN plant p ON p.id = s.plantId
                WHERE s.resolution IS NULL AND p.householdId = ?
                """, arguments: [household]) ?? 0
            return RecheckSummary(
                queued: counts["queued"] ?? 0, done: counts["done"] ?? 0, failed: counts["failed"] ?? 0,
                expired: counts["expired"] ?? 0, openSuggestions: open
            )
        }
    }

    /// The items of `household`'s identifications that meet `condition`.
    private static func items(
        _ db: Database, household: Int64, where condition: String, arguments: StatementArguments, order: String, limit: Int?
    ) throws -> [RecheckItem] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT r.*, i.plantId AS plantId FROM recheck r JOIN identification i ON i.id = r.identificationId
            WHERE i.householdId = ? AND (\(condition)) ORDER BY \(order)\(limit.map { " LIMIT \(max(0, $0))" } ?? "")
            """, arguments: [household] + arguments)
        return try rows.map { row in
            let photos = try Row.fetchAll(
                db, sql: "SELECT photoSHA256, organ FROM recheckPhoto WHERE recheckId = ? ORDER BY position",
                arguments: [row["id"] as Int64]
            ).map { RecheckPhoto(sha256: $0["photoSHA256"], organ: $0["organ"]) }
            return try RecheckItem(row: row, photos: photos)
        }
    }

    // MARK: - Draining

    /// Claims a queued item for sending, so that another process draining at the same time skips it. A claim lasts
    /// `lease`, and only while the claiming process lives: one killed mid-send leaves its item to the next run at once,
    /// never lost (the way a PostgreSQL row lock taken with `FOR UPDATE SKIP LOCKED` ends with its session).
    /// - Returns: whether this caller holds the claim.
    public func claimRecheck(
        _ id: Int64, now: Date, lease: TimeInterval = 300, claimant: String = ProcessIdentity.current
    ) throws(StoreError) -> Bool {
        let household = try self.scope("claim a re-check").household
        return try write("claim a re-check") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT r.claimedUntil, r.claimedBy FROM recheck r JOIN identification i ON i.id = r.identificationId
                WHERE r.id = ? AND r.state = 'queued' AND i.householdId = ?
                """, arguments: [id, household]) else { return false }
            return try Self.takeLease(of: "recheck", id: id, held: row, now: now, lease: lease, claimant: claimant, db: db)
        }
    }

    /// Takes the lease of row `id` of `table` (a re-check or a health record that waits), counting a try, unless a live
    /// process other than `claimant` holds an unexpired one; `held` is the row's `claimedUntil` and `claimedBy`.
    static func takeLease(
        of table: String, id: Int64, held row: Row, now: Date, lease: TimeInterval, claimant: String, db: Database
    ) throws -> Bool {
        if row["claimedUntil"] != nil, row.timestamp("claimedUntil") > now, let holder = row["claimedBy"] as String?,
            holder != claimant, ProcessIdentity.isAlive(holder) {
            return false
        }
        try db.execute(
            sql: "UPDATE \(table) SET claimedUntil = ?, claimedBy = ?, attempts = attempts + 1 WHERE id = ?",
            arguments: [now.addingTimeInterval(lease), claimant, id]
        )
        return true
    }

    /// Gives a claim back without counting the attempt (draining stopped before the item was sent or answered).
    public func releaseRecheck(_ id: Int64) throws(StoreError) {
        let household = try self.scope("release a re-check").household
        try write("release a re-check") { db in
            try db.execute(sql: """
                UPDATE recheck SET claimedUntil = NULL, claimedBy = NULL, attempts = max(attempts - 1, 0) WHERE id = ? AND state = 'queued'
                    AND \(Self.recheckInHousehold)
                """, arguments: [id, household])
        }
    }

    /// Records that sending an item failed; after ``StorePolicy/recheckAttemptLimit`` attempts it leaves the queue as failed, and
    /// the photos of an unsaved identification are let go.
    /// - Returns: photos nothing uses any more.
    @discardableResult
    public func failRecheck(_ id: Int64, reason: String, now: Date) throws(StoreError) -> [StoredPhoto] {
        let household = try self.scope("record a failed re-check").household
        return try write("record a failed re-check") { db in
            try db.execute(sql: """
                UPDATE recheck SET claimedUntil = NULL, claimedBy = NULL, lastError = ?,
                    state = CASE WHEN attempts >= ? THEN 'failed' ELSE 'queued' END,
                    finishedAt = CASE WHEN attempts >= ? THEN ? ELSE NULL END
                WHERE id = ? AND state = 'queued' AND \(Self.recheckInHousehold)
                """, arguments: [String(reason.prefix(500)), StorePolicy.recheckAttemptLimit, StorePolicy.recheckAttemptLimit, now, id, household])
            let state = try String.fetchOne(
                db, sql: "SELECT state FROM recheck WHERE id = ? AND \(Self.recheckInHousehold)", arguments: [id, household]
            )
            return state == "failed" ? try Self.releasePhotos(ofRecheck: id, db: db) : []
        }
    }

    /// A condition on `recheck` (unqualified columns): its identification belongs to the household given as the argument.
    private static let recheckInHousehold = "identificationId IN (SELECT id FROM identification WHERE householdId = ?)"

    /// Records Pl@ntNet's answer to a queued item, in one transaction: the answer joins the history beside the checked
    /// identification (under the same plant), the item leaves the queue, and when the answer's best species differs
    /// from the plant's, a suggestion is made (replacing an open one). The plant itself is never changed.
    ///
    /// - Returns: `nil` when the item is no longer queued (another process recorded it first): nothing was written.
    public func completeRecheck(_ id: Int64, answer: Identification, now: Date) throws(StoreError) -> RecheckCompletion? {
        let now = now.roundedToMilliseconds
        var answer = answer
        answer.date = answer.date.roundedToMilliseconds
        let household = try self.scope("record a re-check's answer").household
        return try write("record a re-check's answer") { db -> RecheckCompletion? in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT r.identificationId, (SELECT photoSHA256 FROM recheckPhoto WHERE recheckId = r.id ORDER BY position LIMIT 1)
                    AS firstPhoto FROM recheck r WHERE r.id = ? AND r.state = 'queued' AND r.\(Self.recheckInHousehold)
                """, arguments: [id, household]),
                let original = try FiledIdentification.fetchOne(db, key: row["identificationId"] as Int64)
            else { return nil }
            let firstPhoto: String? = row["firstPhoto"]
            // The answer keeps its photo only where the plant keeps it too; an unsaved identification's photos go.
            let keepsPhoto = try original.plantId != nil && firstPhoto.map { sha in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plantPhoto WHERE plantId = ? AND photoSHA256 = ?)",
                                  arguments: [original.plantId, sha]) ?? false
            } ?? false
            var result = FiledIdentification(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: original.plantId,
                photoSHA256: keepsPhoto ? firstPhoto : nil, identification: answer,
                chosenSpecies: nil, recheckOf: original.id
            )
            try InHousehold(result, household).insert(db)
            result.id = db.lastInsertedRowID
            try db.execute(sql: """
                UPDATE recheck SET state = 'done', resultId = ?, finishedAt = ?, claimedUntil = NULL, claimedBy = NULL, lastError = NULL
                WHERE id = ?
                """, arguments: [result.id, now, id])
            let suggestion = try Self.suggest(
                .recheck, answer: result, previous: original, now: now, db: db
            )
            let released = try Self.releasePhotos(ofRecheck: id, db: db)
            return RecheckCompletion(result: result, suggestion: suggestion, releasedPhotos: released)
        }
    }

    /// Lets go of items of unsaved identifications that waited past their expiry.
    /// - Returns: how many expired, and the photos nothing uses any more.
    public func expireRechecks(now: Date) throws(StoreError) -> (expired: Int, released: [StoredPhoto]) {
        let household = try self.scope("expire old re-checks").household
        return try write("expire old re-checks") { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT id FROM recheck WHERE state = 'queued' AND expiresAt IS NOT NULL AND expiresAt <= ? AND \(Self.recheckInHousehold)
                """, arguments: [now, household])
            var released: [StoredPhoto] = []
            for id in ids {
                try db.execute(sql: "UPDATE recheck SET state = 'expired', finishedAt = ?, claimedUntil = NULL, claimedBy = NULL WHERE id = ?",
                               arguments: [now, id])
                released += try Self.releasePhotos(ofRecheck: id, db: db)
            }
            return (ids.count, released)
        }
    }

    /// Drops an item's photo links and deletes the records of photos nothing else uses.
    private static func releasePhotos(ofRecheck id: Int64, db: Database) throws -> [StoredPhoto] {
        let shas = try String.fetchAll(db, sql: "SELECT photoSHA256 FROM recheckPhoto WHERE recheckId = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM recheckPhoto WHERE recheckId = ?", arguments: [id])
        var released: [StoredPhoto] = []
        for sha in Set(shas).sorted() where try !isPhotoUsed(sha, db: db) {
            if let photo = try StoredPhoto.fetchOne(db, key: sha) {
                try photo.delete(db)
                released.append(photo)
            }
        }
        return released
    }

    /// Moves a queued re-check from an identification that was not saved to the same answer filed under a plant (the
    /// web app's "This is my plant" after an offline identification), in one transaction: the item is kept (no longer
    /// expiring) and the unsaved record goes, so the history holds the answer once.
    public func adoptRecheck(from unsavedId: Int64, to filedId: Int64) throws(StoreError) {
        let household = try self.scope("move a re-check to a saved plant").household
        try write("move a re-check to a saved plant") { db in
            guard let target = try Self.identification(filedId, in: household, db: db), target.plantId != nil else {
                throw StoreError.invalid("Identification \(filedId) is not filed under a plant.")
            }
            guard let source = try Self.identification(unsavedId, in: household, db: db), source.plantId == nil,
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM recheck WHERE identificationId = ?)", arguments: [filedId]) == false
            else { return }
            try db.execute(sql: "UPDATE recheck SET identificationId = ?, expiresAt = NULL WHERE identificationId = ?",
                           arguments: [filedId, unsavedId])
            try db.execute(sql: "UPDATE identification SET recheckOf = ?, plantId = ? WHERE recheckOf = ?",
                           arguments: [filedId, target.plantId, unsavedId])
            _ = try FiledIdentification.deleteOne(db, key: unsavedId)
        }
    }

    /// The identification with this id when it belongs to `household`.
    static func identification(_ id: Int64, in household: Int64, db: Database) throws -> FiledIdentification? {
        try FiledIdentification.fetchOne(
            db, sql: "SELECT * FROM identification WHERE id = ? AND householdId = ?", arguments: [id, household]
        )
    }

    // MARK: - Re-scoring

    /// Each plant's latest on-device identification made with another model than `model`, with a stored photo to
    /// classify again, oldest plant first. A plant re-scored with `model` already has that answer as its latest and is
    /// left out.
    public func rescoreCandidates(model: String) throws(StoreError) -> [RescoreCandidate] {
        let household = try self.scope("find identifications to re-score").household
        return try read("find identifications to re-score") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT i.id AS identificationId, p.id AS plantId,
                    coalesce(i.photoSHA256,
                        (SELECT rp.photoSHA256 FROM recheck r JOIN recheckPhoto rp ON rp.recheckId = r.id
                         WHERE r.identificationId = i.id ORDER BY rp.position LIMIT 1),
                        (SELECT photoSHA256 FROM plantPhoto WHERE plantId = p.id ORDER BY isCover DESC, addedAt LIMIT 1))
                        AS photo
                FROM plant p JOIN identification i ON i.id = (
                    SELECT id FROM identification WHERE plantId = p.id AND source = 'onDevice'
                    ORDER BY identifiedAt DESC, id DESC LIMIT 1)
                WHERE p.householdId = ? AND i.model IS NOT ?
                ORDER BY p.id
                """, arguments: [household, model])
            return try rows.compactMap { row -> RescoreCandidate? in
                guard let photo = row["photo"] as String?,
                    let plant = try Plant.fetchOne(db, key: row["plantId"] as Int64),
                    let identification = try FiledIdentification.fetchOne(db, key: row["identificationId"] as Int64)
                else { return nil }
                return RescoreCandidate(plant: plant, identification: identification, photoSHA256: photo)
            }
        }
    }

    /// Files a re-scoring's answer beside the identification it redid, and suggests its species when it differs from
    /// the plant's, in one transaction.
    public func fileRescore(
        _ answer: Identification, of original: FiledIdentification, photoSHA256: String, now: Date
    ) throws(StoreError) -> (result: FiledIdentification, suggestion: SpeciesSuggestion?) {
        let now = now.roundedToMilliseconds
        var answer = answer
        answer.date = answer.date.roundedToMilliseconds
        let household = try self.scope("file a re-scoring").household
        return try write("file a re-scoring") { db in
            guard let plantId = original.plantId, try Self.plantExists(plantId, in: household, db: db),
                try Self.identification(original.id, in: household, db: db) != nil
            else {
                throw StoreError.invalid("Identification \(original.id) is not filed under a plant.")
            }
            let photoKept = try StoredPhoto.exists(db, key: photoSHA256)
            var result = FiledIdentification(
                id: 0, uuid: UUID().uuidString.lowercased(), plantId: plantId, photoSHA256: photoKept ? photoSHA256 : nil,
                identification: answer, chosenSpecies: nil, recheckOf: original.id
            )
            try InHousehold(result, household).insert(db)
            result.id = db.lastInsertedRowID
            return (result, try Self.suggest(.rescore, answer: result, previous: original, now: now, db: db))
        }
    }

    // MARK: - Suggestions

    /// Makes a suggestion when `answer`'s best species differs from its plant's current species.
    private static func suggest(
        _ kind: SpeciesSuggestion.Kind, answer: FiledIdentification, previous: FiledIdentification, now: Date, db: Database
    ) throws -> SpeciesSuggestion? {
        guard let plantId = answer.plantId, let plant = try Plant.fetchOne(db, key: plantId),
            let proposal = SuggestionRule.proposal(answer: answer.identification, previous: previous, plantSpecies: plant.species)
        else { return nil }
        let current = proposal.currentSpecies, best = proposal.best
        try db.execute(sql: """
            UPDATE speciesSuggestion SET resolution = 'superseded', resolvedAt = ? WHERE plantId = ? AND resolution IS NULL
            """, arguments: [now, plantId])
        let previousBest = previous.identification.best
        try db.execute(sql: """
            INSERT INTO speciesSuggestion (plantId, kind, identificationId, previousIdentificationId, currentSpecies,
                previousSpecies, previousConfidence, previousModel, suggestedSpecies, confidence, model, createdAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                plantId, kind.rawValue, answer.id, previous.id, current, previousBest?.scientificName,
                previousBest.map { SuggestionRule.clamped($0.confidence) }, previous.identification.model, best.scientificName,
                SuggestionRule.clamped(best.confidence), answer.identification.model, now,
            ])
        return try SpeciesSuggestion.fetchOne(db, sql: "SELECT * FROM speciesSuggestion WHERE id = ?", arguments: [db.lastInsertedRowID])
    }

    /// Suggestions waiting for the owner (of one plant when `plantId` is given), newest first; with `includeResolved`,
    /// settled ones too.
    public func suggestions(plantId: Int64? = nil, includeResolved: Bool = false) throws(StoreError) -> [SpeciesSuggestion] {
        let household = try self.scope("read species suggestions").household
        return try read("read species suggestions") { db in
            var conditions = ["\(Self.suggestionInHousehold)"]
            var arguments: StatementArguments = [household]
            if let plantId {
                conditions.append("plantId = ?")
                arguments += [plantId]
            }
            if !includeResolved { conditions.append("resolution IS NULL") }
            let filter = " WHERE " + conditions.joined(separator: " AND ")
            return try SpeciesSuggestion.fetchAll(
                db, sql: "SELECT * FROM speciesSuggestion\(filter) ORDER BY createdAt DESC, id DESC", arguments: arguments
            )
        }
    }

    /// One suggestion by id.
    public func suggestion(id: Int64) throws(StoreError) -> SpeciesSuggestion? {
        let household = try self.scope("read a species suggestion").household
        return try read("read a species suggestion") { db in
            try SpeciesSuggestion.fetchOne(
                db, sql: "SELECT * FROM speciesSuggestion WHERE id = ? AND \(Self.suggestionInHousehold)", arguments: [id, household]
            )
        }
    }

    /// A condition on `speciesSuggestion` (unqualified columns): its plant belongs to the household given as the argument.
    private static let suggestionInHousehold = "plantId IN (SELECT id FROM plant WHERE householdId = ?)"

    /// Settles an open suggestion. Accepting changes the plant's species (and its name, when the name was the old
    /// species) and confirms it, records the species as chosen on the suggesting identification, and replaces the care
    /// profile with `profile` when one is given; dismissing changes nothing but the suggestion.
    @discardableResult
    public func resolveSuggestion(
        _ id: Int64, accept: Bool, species: String? = nil, profile: CareProfile? = nil, now: Date
    ) throws(StoreError) -> SpeciesSuggestion {
        let now = now.roundedToMilliseconds
        let household = try self.scope("settle a species suggestion").household
        return try write("settle a species suggestion") { db in
            guard let suggestion = try SpeciesSuggestion.fetchOne(
                db, sql: "SELECT * FROM speciesSuggestion WHERE id = ? AND \(Self.suggestionInHousehold)", arguments: [id, household]
            ) else {
                throw StoreError.invalid("No species suggestion with id \(id). `plantguide recheck list` shows the open ones.")
            }
            guard suggestion.resolution == nil else {
                throw StoreError.invalid("Suggestion \(id) was already \(suggestion.resolution?.rawValue ?? "settled").")
            }
            if accept {
                guard let stored = try Self.plant(suggestion.plantId, in: household, db: db) else { throw StoreError.plantNotFound(suggestion.plantId) }
                let plant = SuggestionRule.accepting(suggestion, species: species, plant: stored, now: now)
                let newSpecies = plant.species ?? suggestion.suggestedSpecies
                try plant.update(db)
                if let profile { try CareProfileRow(plantId: plant.id, profile: profile).save(db) }
                // Taking the suggestion confirms the species: the plant's photos become exemplars of it.
                try Self.recordConfirmation(
                    SpeciesConfirmation(species: newSpecies, source: .identification), plantId: plant.id, at: now, db: db
                )
                try db.execute(sql: "UPDATE identification SET chosenSpecies = ? WHERE id = ?",
                               arguments: [suggestion.suggestedSpecies, suggestion.identificationId])
            }
            try db.execute(sql: "UPDATE speciesSuggestion SET resolution = ?, resolvedAt = ? WHERE id = ?",
                           arguments: [accept ? "accepted" : "dismissed", now, id])
            var settled = suggestion
            settled.resolution = accept ? .accepted : .dismissed
            settled.resolvedAt = now
            return settled
        }
    }
}
