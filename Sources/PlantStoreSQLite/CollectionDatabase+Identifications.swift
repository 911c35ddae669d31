import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    /// Files an identification into the history, in one transaction with everything it implies:
    /// recording its photo, creating a plant for it when `newPlant` is given, and attaching the photo
    /// to the plant.
    /// - Parameters:
    ///   - identification: what the identifier answered.
    ///   - photo: the identified photo, already written by ``PhotoLibrary``.
    ///   - plantId: an existing plant to file it under.
    ///   - newPlant: a plant to create and file it under (with `profile`), instead of `plantId`.
    ///   - chosenSpecies: the species the owner settled on (by default the best prediction).
    ///   - recheck: queues the identification for a later Pl@ntNet re-check with these photos, in the same transaction.
    /// - Returns: the filed record (with the new plant's id when one was created).
    @discardableResult
    public func fileIdentification(
        _ identification: Identification, photo: StoredPhoto? = nil, plantId: Int64? = nil,
        newPlant: (plant: NewPlant, profile: CareProfile)? = nil, chosenSpecies: String? = nil,
        recheck: RecheckRequest? = nil, now: Date
    ) throws(StoreError) -> FiledIdentification {
        let filing = try FiledIdentification.toFile(
            identification, chosenSpecies: chosenSpecies, underPlant: plantId, creatingPlant: newPlant != nil
        )
        let now = now.roundedToMilliseconds
        let scope = try self.scope("file an identification")
        return try write("file an identification") { db in
            var target = plantId
            if let plantId, try !Self.plantExists(plantId, in: scope.household, db: db) { throw StoreError.plantNotFound(plantId) }
            if let newPlant {
                let plant = try insertPlant(try Plant.new(newPlant.plant, now: now), household: scope.household, db: db)
                try CareProfileRow(plantId: plant.id, profile: newPlant.profile).insert(db)
                if let confirmation = newPlant.plant.confirmation {
                    try Self.recordConfirmation(confirmation, plantId: plant.id, at: now, db: db)
                }
                target = plant.id
            }
            if let photo {
                if let target { try Self.link(photo, to: target, at: now, db: db) } else { try Self.recordPhoto(photo, db: db) }
            }
            var record = filing
            record.plantId = target
            record.photoSHA256 = photo?.sha256
            record.recordedBy = scope.userName
            try InHousehold(record, scope.household).insert(db)
            record.id = db.lastInsertedRowID
            if let recheck {
                try Self.queueRecheck(recheck, identificationId: record.id, saved: target != nil, now: now, db: db)
            }
            return record
        }
    }

    /// The identification history, newest first (one plant's when `plantId` is given).
    public func identifications(plantId: Int64? = nil) throws(StoreError) -> [FiledIdentification] {
        let household = try self.scope("read the identification history").household
        return try read("read the identification history") { db in
            if let plantId {
                return try FiledIdentification.fetchAll(
                    db, sql: "SELECT * FROM identification WHERE plantId = ? AND householdId = ? ORDER BY identifiedAt DESC, id DESC",
                    arguments: [plantId, household]
                )
            }
            return try FiledIdentification.fetchAll(
                db, sql: "SELECT * FROM identification WHERE householdId = ? ORDER BY identifiedAt DESC, id DESC", arguments: [household]
            )
        }
    }
}
