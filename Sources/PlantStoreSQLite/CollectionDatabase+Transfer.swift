import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// The collection of the household in scope as the export format, read in one consistent snapshot; `generator` names
    /// the writer.
    public func exportSnapshot(now: Date, generator: String) throws(StoreError) -> CollectionExport {
        let household = try self.scope("read the collection for export").household
        return try read("read the collection for export") { db in
            let ofHousehold = "plantId IN (SELECT id FROM plant WHERE householdId = ?)"
            let plants = try Plant.fetchAll(
                db, sql: "SELECT \(Plant.columnList) FROM plant WHERE householdId = ? ORDER BY uuid", arguments: [household]
            )
            var profiles: [Int64: CareProfile] = [:]
            for row in try CareProfileRow.fetchAll(db, sql: "SELECT * FROM careProfile WHERE \(ofHousehold)", arguments: [household]) {
                profiles[row.plantId] = row.profile
            }
            let schedules = Dictionary(grouping: try CareScheduleSettings.fetchAll(
                db, sql: "SELECT * FROM careSchedule WHERE \(ofHousehold) ORDER BY task", arguments: [household]
            ), by: \.plantId)
            let events = Dictionary(grouping: try CareEvent.fetchAll(
                db, sql: "SELECT * FROM careEvent WHERE \(ofHousehold) ORDER BY uuid", arguments: [household]
            ), by: \.plantId)
            var links: [Int64: [CollectionExport.ExportedPhotoLink]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT plantId, photoSHA256, addedAt FROM plantPhoto WHERE \(ofHousehold) ORDER BY photoSHA256",
                arguments: [household]
            ) {
                links[row["plantId"], default: []].append(.init(sha256: row["photoSHA256"], addedAt: row.timestamp("addedAt")))
            }
            let photos = try StoredPhoto.fetchAll(
                db, sql: "SELECT * FROM photo WHERE \(Self.photoVisible) ORDER BY sha256", arguments: ["household": household]
            )
            let identifications = try FiledIdentification.fetchAll(
                db, sql: "SELECT * FROM identification WHERE householdId = ? ORDER BY uuid", arguments: [household]
            )
            return CollectionExport.assemble(
                now: now, generator: generator, plants: plants, profiles: profiles, schedules: schedules, events: events,
                links: links, photos: photos, identifications: identifications,
                healthRecords: try Self.healthRecords(where: "plant.householdId = ?", [household], db: db)
            )
        }
    }

    /// Adds an archive's rows that are not there yet to the household in scope, in one transaction: plants, events,
    /// photos and identifications already present in it (same UUID or SHA-256) are left as they are, so importing twice
    /// adds nothing the second time. A plant, event or identification whose UUID another household holds is added with a
    /// fresh UUID, so importing never changes another household's rows. The photo files must be in place first.
    public func importRows(_ content: CollectionExport) throws(StoreError) -> ImportSummary {
        let household = try self.scope("import the collection").household
        return try write("import the collection") { db in
            var summary = ImportSummary()
            for photo in content.photos where try !StoredPhoto.exists(db, key: photo.sha256) {
                try photo.storedPhoto.insert(db)
                summary.photosAdded += 1
            }
            var ids: [String: Int64] = [:]
            // Only photos whose files the archive carries may be linked: naming another photo's SHA-256 gains nothing.
            let carried = Set(content.photos.map(\.sha256))
            for plant in content.plants {
                let (uuid, present) = try Self.importUUID("plant", plant.uuid, household: household, db: db)
                if let present {
                    ids[plant.uuid] = present
                    summary.plantsAlreadyPresent += 1
                } else {
                    let inserted = try insertPlant(Plant(
                        id: 0, uuid: uuid, name: plant.name, species: plant.species, nickname: plant.nickname,
                        room: plant.room, acquiredOn: plant.acquiredOn, notes: plant.notes, createdAt: plant.createdAt,
                        updatedAt: plant.updatedAt
                    ), household: household, db: db)
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
                            restDays: schedule.restDays, paused: schedule.paused, snoozedUntil: schedule.snoozedUntil,
                            learnedGrowing: schedule.learnedGrowing.flatMap(IntervalLearner.clamped),
                            learnedRest: schedule.learnedRest.flatMap(IntervalLearner.clamped), learnedSince: schedule.learnedSince,
                            conditions: schedule.task == .water ? try? schedule.conditions?.checked() : nil
                        ).insert(db)
                    }
                }
                guard let plantId = ids[plant.uuid] else { continue }
                for link in plant.photos where carried.contains(link.sha256) {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (?, ?, ?)",
                        arguments: [plantId, link.sha256, link.addedAt]
                    )
                }
                for event in plant.events {
                    let (uuid, present) = try Self.importUUID("careEvent", event.uuid, household: household, db: db)
                    if present != nil { continue }
                    try db.execute(sql: """
                        INSERT INTO careEvent (uuid, plantId, task, day, note, createdAt, soil) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [uuid, plantId, event.task.rawValue,
                                         event.day.description, event.note, event.createdAt, event.soil?.rawValue])
                    summary.eventsAdded += db.changesCount
                }
                for kept in plant.healthRecords ?? [] {
                    let (uuid, present) = try Self.importUUID("healthRecord", kept.uuid, household: household, db: db)
                    if present != nil { continue }
                    let photos = try CollectionExport.importedPhotos(of: kept, carried: carried)
                    let wait = try CollectionExport.importedWait(of: kept, photos: photos, now: content.exportedAt)
                    try db.execute(
                        sql: """
                            INSERT INTO healthRecord (uuid, plantId, diagnosis, note, recordedBy, recordedAt, language, attempts,
                                lastError, gaveUpAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [uuid, plantId, try kept.diagnosis.map(DiagnosisColumn.encode), kept.note.nonEmpty, kept.recordedBy,
                                    kept.recordedAt.roundedToMilliseconds, wait.language, wait.attempts, wait.lastError,
                                    wait.gaveUpAt]
                    )
                    let recordId = db.lastInsertedRowID
                    for (position, photo) in photos.enumerated() {
                        try db.execute(
                            sql: "INSERT INTO healthRecordPhoto (recordId, position, photoSHA256, organ) VALUES (?, ?, ?, ?)",
                            arguments: [recordId, position, photo.sha256, photo.organ]
                        )
                    }
                    summary.healthRecordsAdded += 1
                }
            }
            for filed in content.identifications {
                let (uuid, present) = try Self.importUUID("identification", filed.uuid, household: household, db: db)
                if present != nil { continue }
                let record = FiledIdentification(
                    id: 0, uuid: uuid, plantId: filed.plantUUID.flatMap { ids[$0] },
                    photoSHA256: filed.photoSHA256.flatMap { carried.contains($0) ? $0 : nil },
                    identification: Identification(
                        source: filed.source, model: filed.model, predictions: filed.predictions, uncertain: filed.uncertain,
                        date: filed.identifiedAt
                    ),
                    chosenSpecies: filed.chosenSpecies
                )
                try InHousehold(record, household).insert(db)
                summary.identificationsAdded += 1
            }
            return summary
        }
    }

    /// The UUID an archive's row takes in `household`, and the id of the row that is already there under it: its own
    /// UUID unless another household holds that, else the UUID derived for this household (``ImportIdentity``).
    static func importUUID(_ table: String, _ uuid: String, household: Int64, db: Database) throws -> (String, Int64?) {
        func holder(_ uuid: String) throws -> (id: Int64, household: Int64)? {
            let sql = switch table {
            case "careEvent": "SELECT careEvent.id, plant.householdId FROM careEvent JOIN plant ON plant.id = careEvent.plantId WHERE careEvent.uuid = ?"
            case "identification": "SELECT id, householdId FROM identification WHERE uuid = ?"
            case "healthRecord":
                "SELECT healthRecord.id, plant.householdId FROM healthRecord JOIN plant ON plant.id = healthRecord.plantId WHERE healthRecord.uuid = ?"
            default: "SELECT id, householdId FROM plant WHERE uuid = ?"
            }
            return try Row.fetchOne(db, sql: sql, arguments: [uuid]).map { ($0[0], $0[1]) }
        }
        guard let original = try holder(uuid) else { return (uuid, nil) }
        if original.household == household { return (uuid, original.id) }
        let derived = ImportIdentity.uuid(uuid, household: household)
        return (derived, try holder(derived).flatMap { $0.household == household ? $0.id : nil })
    }
}
