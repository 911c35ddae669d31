import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Export and import of the whole collection on PostgreSQL, the twin of `CollectionDatabase+Transfer.swift`: the same
/// export, in the same order, so an export from either backend compares equal to the other's, which is how a move from
/// SQLite to PostgreSQL is checked.
extension PostgresStore: TransferStore {
    public func exportSnapshot(now: Date, generator: String) async throws(StoreError) -> CollectionExport {
        try await inSnapshot("read the collection for export") { connection in
            let logger = self.logger
            var plants: [Plant] = []
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.plantColumns) FROM plant ORDER BY uuid COLLATE \"C\"", logger: logger
            ).decode(PlantRow.self) {
                plants.append(Self.plant(row))
            }
            var profiles: [Int64: CareProfile] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.profileColumns) FROM careProfile", logger: logger
            ).decode(ProfileRow.self) {
                profiles[row.0] = try Self.profile(row)
            }
            var schedules: [Int64: [CareScheduleSettings]] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.scheduleColumns) FROM careSchedule ORDER BY task COLLATE \"C\"", logger: logger
            ).decode(ScheduleRow.self) {
                let settings = try Self.settings(row)
                schedules[settings.plantId, default: []].append(settings)
            }
            var events: [Int64: [CareEvent]] = [:]
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.eventColumns) FROM careEvent ORDER BY uuid COLLATE \"C\"", logger: logger
            ).decode(EventRow.self) {
                let event = try Self.event(row)
                events[event.plantId, default: []].append(event)
            }
            var links: [Int64: [CollectionExport.ExportedPhotoLink]] = [:]
            for try await (plantId, sha256, addedAt) in try await connection.query(
                "SELECT plantId, photoSHA256, addedAt FROM plantPhoto ORDER BY photoSHA256 COLLATE \"C\"", logger: logger
            ).decode((Int64, String, PostgresInstant).self) {
                links[plantId, default: []].append(.init(sha256: sha256, addedAt: addedAt.date))
            }
            var photos: [StoredPhoto] = []
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.photoColumns) FROM photo ORDER BY sha256 COLLATE \"C\"", logger: logger
            ).decode(PhotoRow.self) {
                photos.append(Self.photo(row))
            }
            let identifications = try await Self.identifications(try await connection.query(
                "SELECT \(unescaped: Self.identificationColumns) FROM identification ORDER BY uuid COLLATE \"C\"", logger: logger
            ))
            return CollectionExport.assemble(
                now: now, generator: generator, plants: plants, profiles: profiles, schedules: schedules, events: events,
                links: links, photos: photos, identifications: identifications
            )
        }
    }

    public func importRows(_ content: CollectionExport) async throws(StoreError) -> ImportSummary {
        try await inTransaction("import the collection") { connection in
            let logger = self.logger
            var summary = ImportSummary()
            for photo in content.photos {
                let stored = CollectionArchive.stored(photo)
                let rows = try await connection.query("""
                    INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, width, height, thumbnailSHA256, createdAt)
                    VALUES (\(stored.sha256), \(stored.originalSHA256), \(stored.mediaType), \(stored.byteCount), \(stored.width),
                        \(stored.height), \(stored.thumbnailSHA256), \(PostgresInstant(stored.createdAt)))
                    ON CONFLICT (sha256) DO NOTHING RETURNING 1
                    """, logger: logger)
                for try await _ in rows.decode(Int.self) { summary.photosAdded += 1 }
            }
            var ids: [String: Int64] = [:]
            for plant in content.plants {
                let existing = try await connection.query("SELECT id FROM plant WHERE uuid = \(plant.uuid)", logger: logger)
                for try await id in existing.decode(Int64.self) { ids[plant.uuid] = id }
                if ids[plant.uuid] != nil {
                    summary.plantsAlreadyPresent += 1
                } else {
                    // Archives do not carry confirmations: a catalog species is taken as confirmed, as when upgrading.
                    let inserted = try await Self.insertPlant(
                        Plant(
                            id: 0, uuid: plant.uuid, name: plant.name, species: plant.species, nickname: plant.nickname,
                            room: plant.room, acquiredOn: plant.acquiredOn, notes: plant.notes, createdAt: plant.createdAt,
                            updatedAt: plant.updatedAt
                        ),
                        profile: plant.careProfile, confirmation: plant.species.map { SpeciesConfirmation(species: $0, source: .name) },
                        on: connection, logger: logger
                    )
                    ids[plant.uuid] = inserted.id
                    summary.plantsAdded += 1
                    for schedule in plant.schedules {
                        try await connection.query("""
                            INSERT INTO careSchedule (plantId, task, growingDays, restDays, paused, snoozedUntil)
                            VALUES (\(inserted.id), \(schedule.task.rawValue), \(schedule.growingDays), \(schedule.restDays),
                                \(schedule.paused), \(schedule.snoozedUntil.bound))
                            """, logger: logger)
                    }
                }
                guard let plantId = ids[plant.uuid] else { continue }
                for link in plant.photos {
                    try await connection.query("""
                        INSERT INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (\(plantId), \(link.sha256), \(PostgresInstant(link.addedAt)))
                        ON CONFLICT (plantId, photoSHA256) DO NOTHING
                        """, logger: logger)
                }
                for event in plant.events {
                    let rows = try await connection.query("""
                        INSERT INTO careEvent (uuid, plantId, task, day, note, createdAt)
                        VALUES (\(event.uuid), \(plantId), \(event.task.rawValue), \(PostgresDay(event.day)), \(event.note),
                            \(PostgresInstant(event.createdAt)))
                        ON CONFLICT (uuid) DO NOTHING RETURNING 1
                        """, logger: logger)
                    for try await _ in rows.decode(Int.self) { summary.eventsAdded += 1 }
                }
            }
            for filed in content.identifications {
                let existing = try await connection.query("SELECT 1 FROM identification WHERE uuid = \(filed.uuid)", logger: logger)
                var present = false
                for try await _ in existing.decode(Int.self) { present = true }
                if present { continue }
                _ = try await Self.insertIdentification(
                    FiledIdentification(
                        id: 0, uuid: filed.uuid, plantId: filed.plantUUID.flatMap { ids[$0] }, photoSHA256: filed.photoSHA256,
                        identification: Identification(
                            source: filed.source, model: filed.model, predictions: filed.predictions, uncertain: filed.uncertain,
                            date: filed.identifiedAt
                        ),
                        chosenSpecies: filed.chosenSpecies
                    ),
                    on: connection, logger: logger
                )
                summary.identificationsAdded += 1
            }
            return summary
        }
    }
}

/// Every part of the collection store is there: plants, care, history, recognition, statistics and transfer.
extension PostgresStore: CollectionStore {
    /// The server and database, without the password.
    public var locationDescription: String { location.description }
}
