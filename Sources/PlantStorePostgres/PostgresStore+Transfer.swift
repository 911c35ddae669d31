import Foundation
import Logging
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Export and import of the whole collection on PostgreSQL, the twin of `CollectionDatabase+Transfer.swift`: the same
/// export, in the same order, so an export from either backend compares equal to the other's, which is how a move from
/// SQLite to PostgreSQL is checked.
extension PostgresStore: TransferStore {
    public func exportSnapshot(now: Date, generator: String) async throws(StoreError) -> CollectionExport {
        let household = try scope("read the collection for export").household
        return try await inSnapshot("read the collection for export") { connection in
            let logger = self.logger
            // Only the household's rows: its plants and what hangs off them, its identifications, the photos it sees.
            let owned = "JOIN plant ON plant.id = plantId WHERE plant.householdId = \(household)"
            var plants: [Plant] = []
            for try await row in try await connection.query("""
                SELECT \(unescaped: Self.plantColumns) FROM plant WHERE householdId = \(household) ORDER BY uuid COLLATE "C"
                """, logger: logger
            ) {
                plants.append(try Self.plant(row))
            }
            var profiles: [Int64: CareProfile] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.profileColumns) FROM careProfile \(unescaped: owned)", logger: logger
            ).decode(ProfileRow.self) {
                profiles[row.0] = try Self.profile(row)
            }
            var schedules: [Int64: [CareScheduleSettings]] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.scheduleColumns) FROM careSchedule \(unescaped: owned) ORDER BY task COLLATE \"C\"",
                logger: logger
            ).decode(ScheduleRow.self) {
                let settings = try Self.settings(row)
                schedules[settings.plantId, default: []].append(settings)
            }
            var events: [Int64: [CareEvent]] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.eventColumns) FROM careEvent \(unescaped: owned) ORDER BY careEvent.uuid COLLATE \"C\"",
                logger: logger
            ).decode(EventRow.self) {
                let event = try Self.event(row)
                events[event.plantId, default: []].append(event)
            }
            var links: [Int64: [CollectionExport.ExportedPhotoLink]] = [:]
            for try await (plantId, sha256, addedAt) in try await connection.query(
                "SELECT plantId, photoSHA256, addedAt FROM plantPhoto \(unescaped: owned) ORDER BY photoSHA256 COLLATE \"C\"",
                logger: logger
            ).decode((Int64, String, PostgresInstant).self) {
                links[plantId, default: []].append(.init(sha256: sha256, addedAt: addedAt.date))
            }
            var photos: [StoredPhoto] = []
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.photoColumns) FROM photo WHERE \(unescaped: Self.photoVisible(household)) ORDER BY sha256 COLLATE \"C\"",
                logger: logger
            ).decode(PhotoRow.self) {
                photos.append(Self.photo(row))
            }
            let identifications = try await Self.identifications(try await connection.query("""
                SELECT \(unescaped: Self.identificationColumns) FROM identification WHERE householdId = \(household)
                ORDER BY uuid COLLATE "C"
                """, logger: logger))
            return CollectionExport.assemble(
                now: now, generator: generator, plants: plants, profiles: profiles, schedules: schedules, events: events,
                links: links, photos: photos, identifications: identifications,
                healthRecords: try await Self.healthRecords(where: "p.householdId = \(household)", on: connection, logger: logger)
            )
        }
    }

    public func importRows(_ content: CollectionExport) async throws(StoreError) -> ImportSummary {
        let household = try scope("import the collection").household
        return try await inTransaction("import the collection") { connection in
            let logger = self.logger
            var summary = ImportSummary()
            for photo in content.photos {
                let stored = photo.storedPhoto
                let rows = try await connection.query("""
                    INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, width, height, thumbnailSHA256, createdAt)
                    VALUES (\(stored.sha256), \(stored.originalSHA256), \(stored.mediaType), \(stored.byteCount), \(stored.width),
                        \(stored.height), \(stored.thumbnailSHA256), \(PostgresInstant(stored.createdAt)))
                    ON CONFLICT (sha256) DO NOTHING RETURNING 1
                    """, logger: logger)
                for try await _ in rows.decode(Int.self) { summary.photosAdded += 1 }
            }
            // Keyed by the archive's UUIDs. A UUID another household holds is not this household's row: the row comes in
            // under a fresh UUID, and the other household's stays as it is.
            var ids: [String: Int64] = [:]
            // Only photos whose files the archive carries may be linked: naming another photo's SHA-256 gains nothing.
            let carried = Set(content.photos.map(\.sha256))
            for plant in content.plants {
                let (uuid, present) = try await Self.importUUID("plant", plant.uuid, household: household, on: connection, logger: logger)
                if let present {
                    ids[plant.uuid] = present
                    summary.plantsAlreadyPresent += 1
                } else {
                    // Archives do not carry confirmations: a catalog species is taken as confirmed, as when upgrading.
                    let inserted = try await Self.insertPlant(
                        Plant(
                            id: 0, uuid: uuid, name: plant.name, species: plant.species, nickname: plant.nickname,
                            room: plant.room, acquiredOn: plant.acquiredOn, notes: plant.notes, createdAt: plant.createdAt,
                            updatedAt: plant.updatedAt
                        ),
                        household: household, profile: plant.careProfile,
                        confirmation: plant.species.map { SpeciesConfirmation(species: $0, source: .name) },
                        on: connection, logger: logger
                    )
                    ids[plant.uuid] = inserted.id
                    summary.plantsAdded += 1
                    for schedule in plant.schedules {
                        try await connection.query("""
                            INSERT INTO careSchedule (
                                plantId, task, growingDays, restDays, paused, snoozedUntil, learnedGrowing, learnedRest, learnedSince,
                                conditions
                            )
                            VALUES (\(inserted.id), \(schedule.task.rawValue), \(schedule.growingDays), \(schedule.restDays),
                                \(schedule.paused), \(schedule.snoozedUntil.bound), \(schedule.learnedGrowing.flatMap(IntervalLearner.clamped)),
                                \(schedule.learnedRest.flatMap(IntervalLearner.clamped)), \(schedule.learnedSince.bound),
                                \(schedule.task == .water ? CareScheduleSettings.encoded(try? schedule.conditions?.checked()) : nil))
                            """, logger: logger)
                    }
                }
                guard let plantId = ids[plant.uuid] else { continue }
                for link in plant.photos where carried.contains(link.sha256) {
                    try await connection.query("""
                        INSERT INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (\(plantId), \(link.sha256), \(PostgresInstant(link.addedAt)))
                        ON CONFLICT (plantId, photoSHA256) DO NOTHING
                        """, logger: logger)
                }
                for event in plant.events {
                    let (uuid, present) = try await Self.importUUID("careEvent", event.uuid, household: household, on: connection, logger: logger)
                    if present != nil { continue }
                    let rows = try await connection.query("""
                        INSERT INTO careEvent (uuid, plantId, task, day, note, createdAt, soil)
                        VALUES (\(uuid), \(plantId), \(event.task.rawValue), \(PostgresDay(event.day)), \(event.note),
                            \(PostgresInstant(event.createdAt)), \(event.soil?.rawValue))
                        ON CONFLICT (uuid) DO NOTHING RETURNING 1
                        """, logger: logger)
                    for try await _ in rows.decode(Int.self) { summary.eventsAdded += 1 }
                }
                for kept in plant.healthRecords ?? [] {
                    let (uuid, present) = try await Self.importUUID(
                        "healthRecord", kept.uuid, household: household, on: connection, logger: logger
                    )
                    if present != nil { continue }
                    let photos = try CollectionExport.importedPhotos(of: kept, carried: carried)
                    let wait = try CollectionExport.importedWait(of: kept, photos: photos, now: content.exportedAt)
                    var recordId: Int64 = 0
                    for try await id in try await connection.query("""
                        INSERT INTO healthRecord (uuid, plantId, diagnosis, note, recordedBy, recordedAt, language, attempts,
                            lastError, gaveUpAt)
                        VALUES (\(uuid), \(plantId), \(try kept.diagnosis.map(DiagnosisColumn.encode)), \(kept.note.nonEmpty),
                            \(kept.recordedBy), \(PostgresInstant(kept.recordedAt.roundedToMilliseconds)), \(wait.language),
                            \(wait.attempts), \(wait.lastError), \(wait.gaveUpAt.map(PostgresInstant.init)))
                        RETURNING id
                        """, logger: logger).decode(Int64.self) {
                        recordId = id
                    }
                    for (position, photo) in photos.enumerated() {
                        try await connection.query("""
                            INSERT INTO healthRecordPhoto (recordId, position, photoSHA256, organ)
                            VALUES (\(recordId), \(position), \(photo.sha256), \(photo.organ))
                            """, logger: logger)
                    }
                    summary.healthRecordsAdded += 1
                }
            }
            for filed in content.identifications {
                let (uuid, present) = try await Self.importUUID(
                    "identification", filed.uuid, household: household, on: connection, logger: logger
                )
                if present != nil { continue }
                _ = try await Self.insertIdentification(
                    FiledIdentification(
                        id: 0, uuid: uuid, plantId: filed.plantUUID.flatMap { ids[$0] },
                        photoSHA256: filed.photoSHA256.flatMap { carried.contains($0) ? $0 : nil },
                        identification: Identification(
                            source: filed.source, model: filed.model, predictions: filed.predictions, uncertain: filed.uncertain,
                            date: filed.identifiedAt
                        ),
                        chosenSpecies: filed.chosenSpecies
                    ),
                    household: household, on: connection, logger: logger
                )
                summary.identificationsAdded += 1
            }
            return summary
        }
    }
}

extension PostgresStore {
    /// The UUID an archive's row takes in `household`, and the id of the row that is already there under it: its own
    /// UUID unless another household holds that, else the UUID derived for this household (``ImportIdentity``).
    fileprivate static func importUUID(
        _ table: String, _ uuid: String, household: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> (String, Int64?) {
        guard let original = try await uuidHolder(table, uuid: uuid, on: connection, logger: logger) else { return (uuid, nil) }
        if original.household == household { return (uuid, original.id) }
        let derived = ImportIdentity.uuid(uuid, household: household)
        let again = try await uuidHolder(table, uuid: derived, on: connection, logger: logger)
        return (derived, again.flatMap { $0.household == household ? $0.id : nil })
    }

    /// The row holding `uuid` in `table` (`plant`, `careEvent`, `identification` or `healthRecord`) and its household, if any.
    fileprivate static func uuidHolder(_ table: String, uuid: String, on connection: PostgresConnection, logger: Logger)
        async throws -> (id: Int64, household: Int64)? {
        let query: PostgresQuery =
            switch table {
            case "careEvent":
                "SELECT careEvent.id, plant.householdId FROM careEvent JOIN plant ON plant.id = careEvent.plantId WHERE careEvent.uuid = \(uuid)"
            case "identification": "SELECT id, householdId FROM identification WHERE uuid = \(uuid)"
            case "healthRecord":
                "SELECT hr.id, p.householdId FROM healthRecord hr JOIN plant p ON p.id = hr.plantId WHERE hr.uuid = \(uuid)"
            default: "SELECT id, householdId FROM plant WHERE uuid = \(uuid)"
            }
        for try await (id, household) in try await connection.query(query, logger: logger).decode((Int64, Int64).self) {
            return (id, household)
        }
        return nil
    }
}

/// Every part of the collection store is there: plants, care, history, recognition, statistics and transfer.
extension PostgresStore: CollectionStore {
    /// The server and database, without the password.
    public var locationDescription: String { location.description }
}

/// And so is everything else PlantGuide keeps: accounts, the Pl@ntNet state, the server's state, reminders' claims.
extension PostgresStore: PlantGuideStore {}
