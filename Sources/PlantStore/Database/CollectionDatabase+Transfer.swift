import Foundation
import GRDB
import PlantGuideCore

extension CollectionDatabase {
    /// The collection as the export format, read in one consistent snapshot; `generator` names the writer.
    public func exportSnapshot(now: Date, generator: String) throws(StoreError) -> CollectionExport {
        try read("read the collection for export") { db in
            let plants = try Plant.fetchAll(db, sql: "SELECT \(Plant.columnList) FROM plant ORDER BY uuid")
            var profiles: [Int64: CareProfile] = [:]
            for row in try CareProfileRow.fetchAll(db) { profiles[row.plantId] = row.profile }
            let schedules = Dictionary(grouping: try CareScheduleSettings.fetchAll(db, sql: "SELECT * FROM careSchedule ORDER BY task"), by: \.plantId)
            let events = Dictionary(grouping: try CareEvent.fetchAll(db, sql: "SELECT * FROM careEvent ORDER BY uuid"), by: \.plantId)
            var links: [Int64: [CollectionExport.ExportedPhotoLink]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT plantId, photoSHA256, addedAt FROM plantPhoto ORDER BY photoSHA256") {
                links[row["plantId"], default: []].append(.init(sha256: row["photoSHA256"], addedAt: row.timestamp("addedAt")))
            }
            let photos = try StoredPhoto.fetchAll(db, sql: "SELECT * FROM photo ORDER BY sha256")
            let identifications = try FiledIdentification.fetchAll(db, sql: "SELECT * FROM identification ORDER BY uuid")
            return CollectionExport.assemble(
                now: now, generator: generator, plants: plants, profiles: profiles, schedules: schedules, events: events,
                links: links, photos: photos, identifications: identifications
            )
        }
    }

    /// Adds an archive's rows that are not there yet, in one transaction: plants, events, photos and identifications
    /// already present (same UUID or SHA-256) are left as they are, so importing twice adds nothing the second time.
    /// The photo files must be in place first.
    public func importRows(_ content: CollectionExport) throws(StoreError) -> ImportSummary {
        try write("import the collection") { db in
            var summary = ImportSummary()
            for photo in content.photos where try !StoredPhoto.exists(db, key: photo.sha256) {
                try CollectionArchive.stored(photo).insert(db)
                summary.photosAdded += 1
            }
            var ids: [String: Int64] = [:]
            for plant in content.plants {
                if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM plant WHERE uuid = ?", arguments: [plant.uuid]) {
                    ids[plant.uuid] = existing
                    summary.plantsAlreadyPresent += 1
                } else {
                    let inserted = try insertPlant(Plant(
                        id: 0, uuid: plant.uuid, name: plant.name, species: plant.species, nickname: plant.nickname,
                        room: plant.room, acquiredOn: plant.acquiredOn, notes: plant.notes, createdAt: plant.createdAt,
                        updatedAt: plant.updatedAt
                    ), db: db)
                    ids[plant.uuid] = inserted.id
                    summary.plantsAdded += 1
                    // Archives do not carry confirmations: a catalog species is taken as confirmed, as when upgrading.
                    if let species = plant.species {
                        try CollectionDatabase.recordConfirmation(
                            SpeciesConfirmation(species: species, source: .name), plantId: inserted.id, at: plant.createdAt, db: db
                        )
                    }
                    if let profile = plant.careProfile { try CareProfileRow(plantId: inserted.id, profile: profile).insert(db) }
                    for schedule in plant.schedules {
                        try CareScheduleSettings(
                            plantId: inserted.id, task: schedule.task, growingDays: schedule.growingDays,
                            restDays: schedule.restDays, paused: schedule.paused, snoozedUntil: schedule.snoozedUntil
                        ).insert(db)
                    }
                }
                guard let plantId = ids[plant.uuid] else { continue }
                for link in plant.photos {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (?, ?, ?)",
                        arguments: [plantId, link.sha256, link.addedAt]
                    )
                }
                for event in plant.events {
                    try db.execute(sql: """
                        INSERT OR IGNORE INTO careEvent (uuid, plantId, task, day, note, createdAt) VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [event.uuid, plantId, event.task.rawValue, event.day.description, event.note, event.createdAt])
                    summary.eventsAdded += db.changesCount
                }
            }
            for filed in content.identifications where try !FiledIdentification.exists(db, key: ["uuid": filed.uuid]) {
                let record = FiledIdentification(
                    id: 0, uuid: filed.uuid, plantId: filed.plantUUID.flatMap { ids[$0] }, photoSHA256: filed.photoSHA256,
                    identification: Identification(
                        source: filed.source, model: filed.model, predictions: filed.predictions, uncertain: filed.uncertain,
                        date: filed.identifiedAt
                    ),
                    chosenSpecies: filed.chosenSpecies
                )
                try record.insert(db)
                summary.identificationsAdded += 1
            }
            return summary
        }
    }
}
