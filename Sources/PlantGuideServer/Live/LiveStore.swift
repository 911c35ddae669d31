import Foundation
import PlantCatalog
import PlantGuideCore
import PlantImaging
import PlantStore

/// The collection and care schedules over PlantStore's database in the data directory.
enum LiveStore {
    /// Opens the collection; `nil` (and a log line) when the database cannot be opened. The collection itself is
    /// returned too, for the identification layer's learned names and care summaries.
    static func make(
        directory: DataDirectory, catalog: PlantCatalog, hemisphere: Hemisphere, now: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void
    ) -> (CollectionCapability, CareCapability, PlantCollection)? {
        let collection: PlantCollection
        do {
            try directory.create()
            collection = try PlantCollection.open(in: directory, encoder: photoEncoder(), lookup: lookup(catalog), now: now)
        } catch {
            log("collection not opened: \(error)")
            return nil
        }
        let planner = CarePlanner(database: collection.database, hemisphere: hemisphere, timeZone: .current, now: now)
        return (collectionCapability(collection), careCapability(planner, timeZone: .current), collection)
    }

    private static func collectionCapability(_ collection: PlantCollection) -> CollectionCapability {
        let database = collection.database
        return CollectionCapability(
            list: { room in
                try database.plants(room: room).map { plant in entry(plant, photoID: try database.coverPhoto(ofPlant: plant.id)) }
            },
            detail: { id in
                guard let number = plantID(id), try database.plant(id: number) != nil else { return nil }
                let details = try database.details(ofPlant: number)
                let history = details.identifications.map { filed in
                    let best = filed.identification.best
                    let confidence = best.map { " (\(Int(($0.confidence * 100).rounded())) %)" } ?? ""
                    return CollectionEvent(
                        date: filed.identification.date,
                        text: "Identified as \(filed.chosenSpecies ?? best?.scientificName ?? "unknown")\(confidence)"
                    )
                }
                let careLog = details.events.map { event in
                    CollectionEvent(date: day(event.day), text: event.task.pastTense.capitalized + (event.note.map { ": \($0)" } ?? ""))
                }
                return CollectionEntryDetail(
                    entry: entry(details.plant, photoID: try database.coverPhoto(ofPlant: number)),
                    photoIDs: details.photos.reversed().map(\.sha256),
                    history: [CollectionEvent(date: details.plant.createdAt, text: "Added to the collection")] + history,
                    careLog: careLog
                )
            },
            add: { new in
                let existing: Int64?
                if let text = new.plantID {
                    guard let number = plantID(text), try database.plant(id: number) != nil else {
                        throw ServerError.notFound("That plant in your collection")
                    }
                    existing = number
                } else {
                    existing = nil
                }
                let plant: Plant
                if let identification = new.identification {
                    let filed = try collection.fileIdentification(
                        identification, photo: new.photos.first, plantId: existing, createPlant: existing == nil,
                        chosenSpecies: new.scientificName, nickname: new.nickname, room: new.room
                    )
                    guard let id = filed.plantId, let saved = try database.plant(id: id) else {
                        throw ServerError.failed("The plant was not saved.")
                    }
                    plant = saved
                } else if let existing, let saved = try database.plant(id: existing) {
                    plant = saved
                    if let first = new.photos.first { try collection.addPhoto(first, toPlant: existing) }
                } else {
                    plant = try collection.addPlant(
                        name: new.scientificName, nickname: new.nickname, room: new.room, photo: new.photos.first
                    )
                }
                // The other photos of the same plant join it, in the order they were sent.
                for photo in new.photos.dropFirst() { try collection.addPhoto(photo, toPlant: plant.id) }
                return entry(plant, photoID: try database.details(ofPlant: plant.id).photos.last?.sha256)
            },
            photo: { id in
                guard id.count == 64, id.allSatisfy(\.isHexDigit),
                    let photo = try database.photo(sha256: id)
                else { return nil }
                return try? Data(contentsOf: collection.photos.url(of: photo))
            }
        )
    }

    private static func careCapability(_ planner: CarePlanner, timeZone: TimeZone) -> CareCapability {
        CareCapability(
            due: { through in
                let days = max(0, CalendarDay(through, in: timeZone).days(since: planner.today))
                return try planner.due(withinDays: days).tasks.compactMap { task in
                    guard let due = task.dueOn else { return nil }
                    return DueCareItem(
                        id: "\(task.plantId)-\(task.task.rawValue)", plantID: String(task.plantId), plantName: task.plantName,
                        action: task.task.rawValue.capitalized, due: date(due, timeZone: timeZone)
                    )
                }
            },
            markDone: { id in
                let (plant, task) = try scheduledTask(id, planner: planner)
                _ = try planner.markDone(plantId: plant, task: task)
            },
            snooze: { id, days in
                let (plant, task) = try scheduledTask(id, planner: planner)
                _ = try planner.snooze(plantId: plant, task: task, days: days)
            },
            calendar: {
                let today = planner.today
                let tasks = try planner.upcoming(through: today.adding(days: 60))
                return ICalendarWriter(now: Date()).calendar(for: tasks, today: today)
            }
        )
    }

    /// A care task id, `<plant>-<task>` as ``DueCareItem/id`` writes it, of a task the plant has: anything
    /// else is "not found" before a thing is written.
    private static func scheduledTask(_ id: String, planner: CarePlanner) throws -> (Int64, CareTask) {
        let notFound = ServerError.notFound("The care task “\(id)”")
        guard let dash = id.firstIndex(of: "-"), let plant = plantID(id[..<dash]),
              let task = CareTask(rawValue: String(id[id.index(after: dash)...]))
        else { throw notFound }
        guard try planner.schedule(forPlant: plant).contains(where: { $0.task == task }) else { throw notFound }
        return (plant, task)
    }

    /// A plant id exactly as the server writes one: decimal digits, no sign, no leading zero.
    static func plantID(_ text: some StringProtocol) -> Int64? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int64(text)
    }

    private static func entry(_ plant: Plant, photoID: String?) -> CollectionEntry {
        CollectionEntry(
            id: String(plant.id), scientificName: plant.species ?? plant.name, nickname: plant.nickname, room: plant.room,
            photoID: photoID, added: plant.createdAt
        )
    }

    private static func day(_ day: CalendarDay) -> Date { date(day, timeZone: .current) }

    private static func date(_ day: CalendarDay, timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = day.components
        return calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day, hour: 9)) ?? Date()
    }

    private static func lookup(_ catalog: PlantCatalog) -> @Sendable (String) -> CatalogPlant? {
        { name in
            if let plant = try? catalog.plant(named: name) { return plant }
            guard let best = try? catalog.search(name, limit: 1).first, best.match.kind == .exact else { return nil }
            return best.plant
        }
    }

    /// Photos are decoded and re-encoded as JPEG (no EXIF or GPS kept), with a 256-pixel thumbnail.
    private static func photoEncoder() -> PhotoEncoder {
        let photo = UploadPreparer(maxLongSide: 2048, quality: 90, maxBytes: 4_000_000)
        let thumbnail = UploadPreparer(maxLongSide: 256, quality: 80, maxBytes: 200_000)
        return PhotoEncoder { original in
            let prepared = try photo.prepare(original)
            let small = try thumbnail.prepare(prepared.jpeg)
            return EncodedPhoto(
                data: prepared.jpeg, mediaType: "image/jpeg", width: prepared.width, height: prepared.height, thumbnail: small.jpeg
            )
        }
    }
}
