import Foundation
import Logging
import PlantGuideCore
import PlantStore
import PostgresNIO

/// The identification history on PostgreSQL, the twin of `CollectionDatabase+Identifications.swift`: filing an
/// identification with everything it implies (its photo, a new plant, a place in the re-check queue) in one transaction,
/// and reading the history newest first.
///
/// These are the history part of ``PlantStore/HistoryStore``; the conformance comes with the re-check queue and the
/// suggestions.
extension PostgresStore {
    /// Files an identification into the history, in one transaction with everything it implies: recording its photo,
    /// creating a plant for it when `newPlant` is given, attaching the photo to the plant and queueing a re-check.
    /// - Returns: the filed record (with the new plant's id when one was created).
    /// - Throws: ``StoreError/plantNotFound(_:)`` for an unknown `plantId`, ``StoreError/invalid(_:)`` when both a plant
    ///   and a new plant are given, the new plant has no name, or a re-check has no photo.
    @discardableResult
    public func fileIdentification(
        _ identification: Identification, photo: StoredPhoto?, plantId: Int64?,
        newPlant: (plant: NewPlant, profile: CareProfile)?, chosenSpecies: String?, recheck: RecheckRequest?, now: Date
    ) async throws(StoreError) -> FiledIdentification {
        let scope = try scope("file an identification")
        let household = scope.household
        var filing = try FiledIdentification.toFile(
            identification, chosenSpecies: chosenSpecies, underPlant: plantId, creatingPlant: newPlant != nil
        )
        filing.recordedBy = scope.userName
        let now = now.roundedToMilliseconds
        let created = try newPlant.map { entry throws(StoreError) in try Plant.new(entry.plant, now: now) }
        return try await inTransaction("file an identification") { connection in
            var target = plantId
            // Locked against removal until this commits, so the identification never points at a plant just removed.
            if let plantId,
                try await !Self.lockPlant(plantId, household: household, mode: "FOR KEY SHARE", on: connection, logger: self.logger) {
                throw StoreError.plantNotFound(plantId)
            }
            if let newPlant, let created {
                let added = try await Self.insertPlant(
                    created, household: household, profile: newPlant.profile, confirmation: newPlant.plant.confirmation, on: connection,
                    logger: self.logger
                )
                target = added.id
            }
            // Every photo this files is recorded (and so locked) first, in SHA-256 order, the order releasing locks them
            // in: a release of the same photos at the same time waits or is waited for, and the two never deadlock.
            var recorded: Set<String> = []
            for entry in ([photo].compactMap { $0 } + (recheck?.photos.map(\.photo) ?? [])).sorted(by: { $0.sha256 < $1.sha256 })
            where recorded.insert(entry.sha256).inserted {
                try await Self.recordPhoto(entry, on: connection, logger: self.logger)
            }
            if let photo {
                if let target {
                    try await Self.link(photo, to: target, at: now, on: connection, logger: self.logger)
                } else {
                    try await Self.recordPhoto(photo, on: connection, logger: self.logger)
                }
            }
            var record = filing
            record.plantId = target
            record.photoSHA256 = photo?.sha256
            record.id = try await Self.insertIdentification(record, household: household, on: connection, logger: self.logger)
            if let recheck {
                try await Self.queueRecheck(
                    recheck, identificationId: record.id, saved: target != nil, now: now, on: connection, logger: self.logger
                )
            }
            return record
        }
    }

    /// The identification history, newest first (one plant's when `plantId` is given).
    public func identifications(plantId: Int64?) async throws(StoreError) -> [FiledIdentification] {
        let household = try scope("read the identification history").household
        return try await withConnection("read the identification history") { connection in
            try await Self.identifications(plantId: plantId, household: household, on: connection, logger: self.logger)
        }
    }
}

// MARK: - Rows and statements the other parts reuse

extension PostgresStore {
    /// The `identification` columns ``identification(_:)`` reads, in its order.
    static let identificationColumns =
        "identification.id, identification.uuid, identification.plantId, identification.photoSHA256, identification.source, "
        + "identification.model, identification.predictions, identification.uncertain, identification.timings, "
        + "identification.identifiedAt, identification.chosenSpecies, identification.recheckOf, identification.recordedBy"
    /// A row of ``identificationColumns``.
    typealias IdentificationRow = (
        Int64, String, Int64?, String?, String, String?, String, Bool, String?, PostgresInstant, String?, Int64?, String?
    )

    /// The filed identification of a row of ``identificationColumns``.
    static func identification(_ row: IdentificationRow) throws -> FiledIdentification {
        try FiledIdentification(
            id: row.0, uuid: row.1, plantId: row.2, photoSHA256: row.3, source: row.4, model: row.5, predictionsJSON: row.6,
            uncertain: row.7, timingsJSON: row.8, identifiedAt: row.9.date, chosenSpecies: row.10, recheckOf: row.11,
            recordedBy: row.12
        )
    }

    /// The identifications of the rows of a query selecting ``identificationColumns``.
    static func identifications(_ rows: PostgresRowSequence) async throws -> [FiledIdentification] {
        var found: [FiledIdentification] = []
        for try await row in rows.decode(IdentificationRow.self) { found.append(try identification(row)) }
        return found
    }

    /// `household`'s identification history, newest first (one plant's when `plantId` is given).
    static func identifications(plantId: Int64?, household: Int64, on connection: PostgresConnection, logger: Logger)
        async throws -> [FiledIdentification] {
        let query: PostgresQuery
        if let plantId {
            query = """
                SELECT \(unescaped: identificationColumns) FROM identification
                WHERE plantId = \(plantId) AND householdId = \(household)
                ORDER BY identifiedAt DESC, id DESC
                """
        } else {
            query = """
                SELECT \(unescaped: identificationColumns) FROM identification WHERE householdId = \(household)
                ORDER BY identifiedAt DESC, id DESC
                """
        }
        return try await identifications(try await connection.query(query, logger: logger))
    }

    /// Inserts an identification record (its id ignored) into `household`; returns the id PostgreSQL gave it. Its photo
    /// and plant (one of `household`'s) must be there already.
    static func insertIdentification(
        _ record: FiledIdentification, household: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int64 {
        let identification = record.identification
        let predictions = try record.predictionsJSON(), timings = try record.timingsJSON()
        let rows = try await connection.query("""
            INSERT INTO identification (householdId, uuid, plantId, photoSHA256, source, model, predictions, uncertain,
                chosenSpecies, identifiedAt, recheckOf, timings, recordedBy)
            VALUES (\(household), \(record.uuid), \(record.plantId), \(record.photoSHA256), \(identification.source.rawValue),
                \(identification.model), \(predictions), \(identification.uncertain), \(record.chosenSpecies),
                \(PostgresInstant(identification.date)), \(record.recheckOf), \(timings), \(record.recordedBy))
            RETURNING id
            """, logger: logger)
        var id: Int64 = 0
        for try await value in rows.decode(Int64.self) { id = value }
        return id
    }

    /// Queues an identification for a re-check with its photos (recorded if new), in the caller's transaction; the twin
    /// of SQLite's `queueRecheck`.
    static func queueRecheck(
        _ request: RecheckRequest, identificationId: Int64, saved: Bool, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !request.photos.isEmpty else { throw StoreError.invalid("A re-check needs at least one photo.") }
        let expires = saved ? nil : PostgresInstant(now.addingTimeInterval(StorePolicy.unsavedRecheckLifetime))
        let rows = try await connection.query("""
            INSERT INTO recheck (identificationId, reason, queuedAt, expiresAt)
            VALUES (\(identificationId), \(request.reason.rawValue), \(PostgresInstant(now)), \(expires))
            RETURNING id
            """, logger: logger)
        var recheckId: Int64 = 0
        for try await value in rows.decode(Int64.self) { recheckId = value }
        // Photo rows are locked in one order (by SHA-256), the order releasing takes them in, so the two never deadlock.
        var recorded: Set<String> = []
        for entry in request.photos.sorted(by: { $0.photo.sha256 < $1.photo.sha256 }) where recorded.insert(entry.photo.sha256).inserted {
            try await recordPhoto(entry.photo, on: connection, logger: logger)
        }
        for (position, entry) in request.photos.enumerated() {
            try await connection.query("""
                INSERT INTO recheckPhoto (recheckId, position, photoSHA256, organ)
                VALUES (\(recheckId), \(position), \(entry.photo.sha256), \(entry.organ))
                """, logger: logger)
        }
    }
}
