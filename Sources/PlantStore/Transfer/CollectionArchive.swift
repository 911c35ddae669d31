import Foundation
import GRDB
import PlantGuideCore
import ZIPFoundation

/// What an import added and what it found already present.
public struct ImportSummary: Sendable, Hashable, Codable {
    public var plantsAdded = 0
    public var plantsAlreadyPresent = 0
    public var eventsAdded = 0
    public var photosAdded = 0
    public var identificationsAdded = 0
}

/// Writes and reads export archives: a ZIP file holding `collection.json` (see ``CollectionExport``),
/// `photos/<sha256>.<ext>` and `thumbnails/<sha256>.jpg`.
public struct CollectionArchive: Sendable {
    public let database: CollectionDatabase
    public let photos: PhotoLibrary
    /// Written into the archive as its generator.
    public var generator = "PlantGuide"

    /// Largest single file accepted from an archive.
    static let maxEntryBytes: UInt64 = 200 * 1024 * 1024

    /// An archiver over a collection's database and photo files.
    public init(database: CollectionDatabase, photos: PhotoLibrary) {
        self.database = database
        self.photos = photos
    }

    /// The collection as the export format, read in one consistent snapshot.
    public func snapshot(now: Date) throws(StoreError) -> CollectionExport {
        try database.read("read the collection for export") { db in
            let plants = try Plant.fetchAll(db, sql: "SELECT \(Plant.columnList) FROM plant ORDER BY uuid")
            var profiles: [Int64: CareProfile] = [:]
            for row in try CareProfileRow.fetchAll(db) { profiles[row.plantId] = row.profile }
            let schedules = Dictionary(grouping: try CareScheduleSettings.fetchAll(db, sql: "SELECT * FROM careSchedule ORDER BY task"), by: \.plantId)
            let events = Dictionary(grouping: try CareEvent.fetchAll(db, sql: "SELECT * FROM careEvent ORDER BY uuid"), by: \.plantId)
            var links: [Int64: [CollectionExport.ExportedPhotoLink]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT plantId, photoSHA256, addedAt FROM plantPhoto ORDER BY photoSHA256") {
                links[row["plantId"], default: []].append(.init(sha256: row["photoSHA256"], addedAt: row.timestamp("addedAt")))
            }
            let uuids = Dictionary(uniqueKeysWithValues: plants.map { ($0.id, $0.uuid) })
            let exportedPlants = plants.map { plant in
                CollectionExport.ExportedPlant(
                    uuid: plant.uuid, name: plant.name, species: plant.species, nickname: plant.nickname, room: plant.room,
                    acquiredOn: plant.acquiredOn, notes: plant.notes, createdAt: plant.createdAt, updatedAt: plant.updatedAt,
                    careProfile: profiles[plant.id],
                    schedules: (schedules[plant.id] ?? []).map {
                        .init(task: $0.task, growingDays: $0.growingDays, restDays: $0.restDays, paused: $0.paused, snoozedUntil: $0.snoozedUntil)
                    },
                    photos: links[plant.id] ?? [],
                    events: (events[plant.id] ?? []).map {
                        .init(uuid: $0.uuid, task: $0.task, day: $0.day, note: $0.note, createdAt: $0.createdAt)
                    }
                )
            }
            let exportedPhotos = try StoredPhoto.fetchAll(db, sql: "SELECT * FROM photo ORDER BY sha256").map { photo in
                CollectionExport.ExportedPhoto(
                    sha256: photo.sha256, originalSHA256: photo.originalSHA256, mediaType: photo.mediaType,
                    byteCount: photo.byteCount, width: photo.width, height: photo.height,
                    thumbnailSHA256: photo.thumbnailSHA256, createdAt: photo.createdAt,
                    file: "photos/\(photo.sha256).\(PhotoLibrary.fileExtension(for: photo.mediaType))",
                    thumbnail: photo.thumbnailSHA256.map { "thumbnails/\($0).jpg" }
                )
            }
            let identifications = try FiledIdentification.fetchAll(db, sql: "SELECT * FROM identification ORDER BY uuid").map { filed in
                CollectionExport.ExportedIdentification(
                    uuid: filed.uuid, plantUUID: filed.plantId.flatMap { uuids[$0] }, photoSHA256: filed.photoSHA256,
                    source: filed.identification.source, model: filed.identification.model,
                    predictions: filed.identification.predictions, uncertain: filed.identification.uncertain,
                    chosenSpecies: filed.chosenSpecies, identifiedAt: filed.identification.date
                )
            }
            return CollectionExport(
                format: CollectionExport.formatName, formatVersion: CollectionExport.currentVersion, exportedAt: now,
                generator: generator, plants: exportedPlants, photos: exportedPhotos, identifications: identifications
            )
        }
    }

    /// Writes the whole collection to a ZIP file at `url` (replacing it only when complete).
    @discardableResult
    public func export(to url: URL, now: Date) throws(StoreError) -> CollectionExport {
        let content = try snapshot(now: now)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        do {
            let archive = try Archive(url: temporary, accessMode: .create)
            let json = try CollectionExport.encoder().encode(content)
            try add(json, as: "collection.json", to: archive, compress: true)
            for photo in content.photos {
                let stored = StoredPhoto(
                    sha256: photo.sha256, originalSHA256: photo.originalSHA256, mediaType: photo.mediaType,
                    byteCount: photo.byteCount, width: photo.width, height: photo.height,
                    thumbnailSHA256: photo.thumbnailSHA256, createdAt: photo.createdAt
                )
                let data = try Data(contentsOf: photos.url(of: stored))
                try add(data, as: photo.file, to: archive, compress: false)
                if let thumbnailPath = photo.thumbnail, let thumbnailURL = photos.thumbnailURL(of: stored) {
                    try add(try Data(contentsOf: thumbnailURL), as: thumbnailPath, to: archive, compress: false)
                }
            }
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            try FileManager.default.moveItem(at: temporary, to: url)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if let error = error as? StoreError { throw error }
            throw .file(path: url.path, reason: "cannot write the export (\(error))")
        }
        return content
    }

    /// Reads an export archive into the collection: photos are written first, then every row in one
    /// transaction. Plants, events, photos and identifications already present (same UUID or
    /// SHA-256) are left as they are, so importing twice adds nothing the second time.
    @discardableResult
    public func importArchive(from url: URL) throws(StoreError) -> ImportSummary {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw .badArchive("\(url.path) is not a readable ZIP file (\(error))")
        }
        let content: CollectionExport
        do {
            content = try CollectionExport.decoder().decode(CollectionExport.self, from: try read("collection.json", from: archive))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .badArchive("collection.json does not match the format (\(error))")
        }
        guard content.format == CollectionExport.formatName else { throw .badArchive("format is '\(content.format)'") }
        guard content.formatVersion <= CollectionExport.currentVersion else {
            throw .badArchive("format version \(content.formatVersion) is newer than this PlantGuide reads (\(CollectionExport.currentVersion))")
        }
        // Files first: a crash after this leaves only unreferenced files.
        for photo in content.photos {
            guard Self.isHex64(photo.sha256), photo.thumbnailSHA256.map(Self.isHex64) ?? true else {
                throw .badArchive("photo name \(photo.sha256) is not a SHA-256")
            }
            let data = try read(photo.file, from: archive)
            let thumbnail = try photo.thumbnail.map { path throws(StoreError) in try read(path, from: archive) }
            try photos.restore(Self.stored(photo), data: data, thumbnail: thumbnail)
        }
        return try database.write("import the collection") { db in
            var summary = ImportSummary()
            for photo in content.photos where try !StoredPhoto.exists(db, key: photo.sha256) {
                try Self.stored(photo).insert(db)
                summary.photosAdded += 1
            }
            var ids: [String: Int64] = [:]
            for plant in content.plants {
                if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM plant WHERE uuid = ?", arguments: [plant.uuid]) {
                    ids[plant.uuid] = existing
                    summary.plantsAlreadyPresent += 1
                } else {
                    let inserted = try database.insertPlant(Plant(
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

    private func add(_ data: Data, as path: String, to archive: Archive, compress: Bool) throws {
        try archive.addEntry(
            with: path, type: .file, uncompressedSize: Int64(data.count), modificationDate: Date(timeIntervalSince1970: 0),
            compressionMethod: compress ? .deflate : .none
        ) { position, size in
            data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
        }
    }

    private func read(_ path: String, from archive: Archive) throws(StoreError) -> Data {
        guard let entry = archive[path] else { throw .badArchive("\(path) is missing") }
        guard entry.type == .file, entry.uncompressedSize <= Self.maxEntryBytes else {
            throw .badArchive("\(path) is not a file of acceptable size")
        }
        var data = Data()
        do {
            _ = try archive.extract(entry) { chunk in
                data.append(chunk)
                if data.count > Self.maxEntryBytes { throw StoreError.badArchive("\(path) is larger than it claims") }
            }
        } catch {
            throw .badArchive("\(path) cannot be extracted (\(error))")
        }
        return data
    }

    private static func stored(_ photo: CollectionExport.ExportedPhoto) -> StoredPhoto {
        StoredPhoto(
            sha256: photo.sha256, originalSHA256: photo.originalSHA256, mediaType: photo.mediaType, byteCount: photo.byteCount,
            width: photo.width, height: photo.height, thumbnailSHA256: photo.thumbnailSHA256, createdAt: photo.createdAt
        )
    }

    private static func isHex64(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy { "0123456789abcdef".contains($0) }
    }
}
