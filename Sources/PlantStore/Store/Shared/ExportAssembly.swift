import Foundation
import PlantGuideCore

extension CollectionExport {
    /// The export of a collection from its rows as every backend reads them: plants, photos and identifications each in
    /// their export order (by UUID, SHA-256, UUID), and each plant's profile, schedules (by task), care events (by UUID)
    /// and photo links (by SHA-256) by plant id. Both stores build their export with this, so the two compare equal.
    package static func assemble(
        now: Date, generator: String, plants: [Plant], profiles: [Int64: CareProfile], schedules: [Int64: [CareScheduleSettings]],
        events: [Int64: [CareEvent]], links: [Int64: [ExportedPhotoLink]], photos: [StoredPhoto],
        identifications: [FiledIdentification], healthRecords: [HealthRecord]
    ) -> CollectionExport {
        let records = Dictionary(grouping: healthRecords.sorted { $0.uuid < $1.uuid }, by: \.plantId)
        let uuids = Dictionary(uniqueKeysWithValues: plants.map { ($0.id, $0.uuid) })
        let exportedPlants = plants.map { plant in
            ExportedPlant(
                uuid: plant.uuid, name: plant.name, species: plant.species, nickname: plant.nickname, room: plant.room,
                acquiredOn: plant.acquiredOn, notes: plant.notes, createdAt: plant.createdAt, updatedAt: plant.updatedAt,
                careProfile: profiles[plant.id],
                schedules: (schedules[plant.id] ?? []).map {
                    .init(
                        task: $0.task, growingDays: $0.growingDays, restDays: $0.restDays, paused: $0.paused,
                        snoozedUntil: $0.snoozedUntil, learnedGrowing: $0.learnedGrowing, learnedRest: $0.learnedRest,
                        learnedSince: $0.learnedSince, conditions: $0.conditions
                    )
                },
                photos: links[plant.id] ?? [],
                events: (events[plant.id] ?? []).map {
                    .init(uuid: $0.uuid, task: $0.task, day: $0.day, note: $0.note, createdAt: $0.createdAt, soil: $0.soil)
                },
                healthRecords: records[plant.id].map { kept in
                    kept.map {
                        ExportedHealthRecord(
                            uuid: $0.uuid, diagnosis: $0.diagnosis, waiting: $0.waiting, photos: $0.photos, note: $0.note, recordedBy: $0.recordedBy,
                            recordedAt: $0.recordedAt
                        )
                    }
                }
            )
        }
        let exportedPhotos = photos.map { photo in
            ExportedPhoto(
                sha256: photo.sha256, originalSHA256: photo.originalSHA256, mediaType: photo.mediaType,
                byteCount: photo.byteCount, width: photo.width, height: photo.height,
                thumbnailSHA256: photo.thumbnailSHA256, createdAt: photo.createdAt,
                file: "photos/\(photo.sha256).\(PhotoLibrary.fileExtension(for: photo.mediaType))",
                thumbnail: photo.thumbnailSHA256.map { "thumbnails/\($0).jpg" }
            )
        }
        let exportedIdentifications = identifications.map { filed in
            ExportedIdentification(
                uuid: filed.uuid, plantUUID: filed.plantId.flatMap { uuids[$0] }, photoSHA256: filed.photoSHA256,
                source: filed.identification.source, model: filed.identification.model,
                predictions: filed.identification.predictions, uncertain: filed.identification.uncertain,
                chosenSpecies: filed.chosenSpecies, identifiedAt: filed.identification.date
            )
        }
        return CollectionExport(
            format: formatName, formatVersion: currentVersion, exportedAt: now, generator: generator, plants: exportedPlants,
            photos: exportedPhotos, identifications: exportedIdentifications
        )
    }
}

extension CollectionExport {
    /// An archive's health record as both stores import it: only the photos the archive carries (naming another photo's
    /// SHA-256 gains nothing), in their order; an organ the disease service does not take, more than a request's photos
    /// or an overlong note make the archive bad rather than reach a database check.
    package static func importedPhotos(of record: ExportedHealthRecord, carried: Set<String>) throws(StoreError)
        -> [HealthRecordPhoto] {
        guard record.photos.count <= NewHealthRecord.maximumPhotos else {
            throw .badArchive("health record \(record.uuid) has \(record.photos.count) photos (at most \(NewHealthRecord.maximumPhotos))")
        }
        for photo in record.photos where !NewHealthRecord.organs.contains(photo.organ) {
            throw .badArchive("health record \(record.uuid) names the organ “\(photo.organ)”")
        }
        if let note = record.note, note.unicodeScalars.count > NewHealthRecord.maximumNoteCharacters {
            throw .badArchive("health record \(record.uuid) has a note longer than \(NewHealthRecord.maximumNoteCharacters) characters")
        }
        guard record.uuid.count == 36 else { throw .badArchive("health record UUID “\(record.uuid.prefix(40))” is not a UUID") }
        return record.photos.filter { carried.contains($0.sha256) }
    }

    /// An archive's health record's wait as both stores import it: nothing for a record with its diagnosis; for one
    /// without, its language and tries (a record without one is a bad archive). A waiting record whose photos the
    /// archive does not carry cannot be sent: it comes in given up, saying so.
    package static func importedWait(of record: ExportedHealthRecord, photos: [HealthRecordPhoto], now: Date) throws(StoreError)
        -> ImportedWait {
        guard record.diagnosis == nil else { return ImportedWait() }
        guard let wait = record.waiting, HealthRecordWait.isLanguage(wait.language), wait.attempts >= 0 else {
            throw .badArchive("health record \(record.uuid) has neither a diagnosis nor what to ask Pl@ntNet for one")
        }
        if wait.gaveUpAt == nil, photos.isEmpty {
            return ImportedWait(
                language: wait.language, attempts: wait.attempts, lastError: "its photos were not in the archive it came from",
                gaveUpAt: now.roundedToMilliseconds
            )
        }
        return ImportedWait(
            language: wait.language, attempts: wait.attempts, lastError: wait.lastError.map { String($0.prefix(500)) },
            gaveUpAt: wait.gaveUpAt?.roundedToMilliseconds
        )
    }

    /// The wait columns of an imported health record.
    package struct ImportedWait {
        package var language: String?
        package var attempts = 0
        package var lastError: String?
        package var gaveUpAt: Date?
    }
}
