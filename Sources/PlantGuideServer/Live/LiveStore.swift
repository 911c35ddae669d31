import Foundation
import PlantCatalog
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantImaging
import PlantStore
import PlantStoreSQLite

/// The collection and care schedules over PlantStore's database in the data directory.
enum LiveStore {
    /// Opens the collection, its records in `store` (the data directory's SQLite database when `nil`); `nil` (and a log
    /// line) when the database cannot be opened. The collection itself is returned too, for the identification layer's
    /// learned names and care summaries.
    static func make(
        directory: DataDirectory, store: (any PlantGuideStore)?, catalog: PlantCatalog, model: SharedModel,
        hemisphere: Hemisphere, now: @escaping @Sendable () -> Date, log: @escaping @Sendable (String) -> Void
    ) -> (CollectionCapability, CareCapability, PlantCollection)? {
        var collection: PlantCollection
        do {
            try directory.create()
            // Every request acts for its own household: the store refuses collection operations outside one.
            let records: any PlantGuideStore = try store ?? CollectionDatabase.open(in: directory).scoped(to: nil)
            collection = try PlantCollection.open(
                in: directory, store: records, encoder: LivePhotoEncoder.make(), lookup: { catalog.entry(matching: $0) }, now: now
            )
        } catch {
            log("collection not opened: \(error)")
            return nil
        }
        // Photos are embedded by the model identification uses (one copy in memory), whichever is in use when they
        // arrive; without a model they wait for the background re-index.
        collection.embedderSource = { model.loaded?.embedder }
        collection.heavyWork = WorkPool.shared
        // Each household's schedules follow its own hemisphere and time zone (Settings), the server's where it has none.
        let planners = HouseholdPlanners(
            base: CarePlanner(store: collection.store, hemisphere: hemisphere, timeZone: .current, now: now),
            settings: collection.store,
            defaults: CareSettings(hemisphere: hemisphere, timeZone: .current)
        )
        return (collectionCapability(collection, planners: planners), careCapability(planners, timeZone: .current), collection)
    }

    private static func collectionCapability(_ collection: PlantCollection, planners: HouseholdPlanners) -> CollectionCapability {
        let database = collection.store
        var capability = plantsCapability(collection, planners: planners)
        capability.keepDiagnosis = { id, kept in
            let plant = try await existingPlant(id, database: database)
            // Sent again (a second tap, the form resent): the same answer about the same photos is kept once, and so
            // are the same photos waiting for Pl@ntNet.
            for record in try await database.healthRecords(plantId: plant) where Self.sameAnswer(record, kept) {
                var originals: [String] = []
                for photo in record.photos { originals.append(try await database.photo(sha256: photo.sha256)?.originalSHA256 ?? "") }
                if originals == kept.photos.map(\.sha256) { return }
            }
            do {
                if let diagnosis = kept.diagnosis {
                    try await collection.keepDiagnosis(
                        diagnosis, photos: kept.photos.map { ($0.data, $0.organ) }, note: kept.note, plantId: plant
                    )
                } else {
                    try await collection.keepDiagnosisForLater(
                        photos: kept.photos.map { ($0.data, $0.organ) }, language: kept.language, note: kept.note, plantId: plant
                    )
                }
            } catch StoreError.photo(let reason) {
                throw ServerError.unprocessable("The photo could not be stored: \(reason)")
            } catch StoreError.invalid(let reason) {
                throw ServerError.badRequest(reason.prefix(1).uppercased() + reason.dropFirst() + ".")
            }
        }
        capability.removeHealthRecord = { id, recordID in
            let plant = try await existingPlant(id, database: database)
            guard let record = Int64(recordID), try await collection.removeHealthRecord(record, ofPlant: plant) else {
                throw ServerError.notFound("That diagnosis in the plant's history")
            }
        }
        return capability
    }

    /// Whether a kept record holds the answer about to be kept (or, for one kept for later, waits as it would).
    private static func sameAnswer(_ record: HealthRecord, _ kept: DiagnosisToKeep) -> Bool {
        guard let keeping = kept.diagnosis else { return record.isWaiting }
        guard let diagnosis = record.diagnosis else { return false }
        return diagnosis.model == keeping.model && diagnosis.candidates == keeping.candidates
            && abs(diagnosis.date.timeIntervalSince(keeping.date)) < 0.002
    }

    private static func plantsCapability(_ collection: PlantCollection, planners: HouseholdPlanners) -> CollectionCapability {
        let database = collection.store
        return CollectionCapability(
            list: { room in
                var entries: [CollectionEntry] = []
                for plant in try await database.plants(room: room) {
                    entries.append(entry(plant, photoID: try await database.coverPhoto(ofPlant: plant.id)))
                }
                return entries
            },
            detail: { id in
                guard let number = plantID(id), try await database.plant(id: number) != nil else { return nil }
                let details = try await database.details(ofPlant: number)
                let cover = try await database.coverPhoto(ofPlant: number)
                let photos = try await database.photos(ofPlant: number).reversed().map { linked in
                    CollectionPhoto(id: linked.photo.sha256, isCover: linked.photo.sha256 == cover, added: linked.addedAt)
                }
                let rechecks = try await database.rechecks(ofIdentifications: details.identifications.map(\.id))
                let identifications = details.identifications.map { filed in
                    let identification = filed.identification
                    let species = filed.chosenSpecies ?? identification.best?.scientificName
                    // The confidence of the species kept, which need not be the best candidate's.
                    let confidence = identification.predictions.first { $0.scientificName == species }?.confidence
                    var shown = CollectionIdentification(
                        date: identification.date, species: species, confidence: confidence, source: identification.source,
                        model: identification.model
                    )
                    if filed.recheckOf != nil {
                        shown.recheckNote = identification.source == .onDevice ? "re-scored with a new model" : "Pl@ntNet re-check"
                    } else if let item = rechecks[filed.id] {
                        switch item.state {
                        case .queued: shown.recheckNote = "waiting for a Pl@ntNet re-check"
                        case .failed: shown.recheckNote = "the Pl@ntNet re-check failed"
                        case .done, .expired: break
                        }
                    }
                    return shown
                }
                let history = ([CollectionEvent(date: details.plant.createdAt, text: "Added to the collection")]
                    + zip(details.identifications, identifications).map { filed, shown in
                        CollectionEvent(date: shown.date, text: shown.summary, by: filed.recordedBy)
                    })
                    .sorted { $0.date > $1.date }
                let careLog = details.events.map { event in
                    CollectionEvent(
                        date: day(event.day), text: event.summary.prefix(1).uppercased() + event.summary.dropFirst()
                            + (event.note.map { ": \($0)" } ?? ""),
                        by: event.recordedBy
                    )
                }
                let planner = try await planners.current()
                let conditions = details.conditions
                let planned = try await planner.explainedSchedule(forPlant: number, details: details)
                let schedule = planned.map { task in
                    CollectionCareTask(
                        id: "\(number)-\(task.task.rawValue)", action: task.task.rawValue.capitalized, due: task.dueOn.map(day),
                        intervalDays: task.intervalDays, lastDone: task.lastDone.map(day), snoozedUntil: task.snoozedUntil.map(day),
                        overdueDays: task.overdueDays, explanation: task.explanation?.text,
                        checksSoil: task.task == .water && task.dueOn != nil
                    )
                }
                var detail = CollectionEntryDetail(
                    entry: entry(details.plant, photoID: cover), photoIDs: photos.map(\.id), history: history, careLog: careLog,
                    photos: photos, identifications: identifications, careProfile: details.profile, schedule: schedule,
                    conditions: conditions.isEmpty ? nil : conditions
                )
                detail.careFacts = CareFacts.of(details: details, schedule: planned, today: planner.today)
                detail.healthRecords = details.healthRecords.map { record in
                    CollectionHealthRecord(
                        id: String(record.id), date: record.recordedAt,
                        status: record.diagnosis != nil ? .diagnosed : record.isWaiting ? .waiting : .notMade,
                        summary: record.summary, candidates: record.diagnosis?.candidates ?? [], by: record.recordedBy,
                        note: record.note, photoIDs: record.photos.map(\.sha256), model: record.diagnosis?.model
                    )
                }
                return detail
            },
            add: { new in
                let existing: Int64?
                if let text = new.plantID {
                    guard let number = plantID(text), try await database.plant(id: number) != nil else {
                        throw ServerError.notFound("That plant in your collection")
                    }
                    existing = number
                } else {
                    existing = nil
                }
                let plant: Plant
                if let identification = new.identification {
                    let filed = try await collection.fileIdentification(
                        identification, photo: new.photos.first, plantId: existing, createPlant: existing == nil,
                        chosenSpecies: new.scientificName, nickname: new.nickname, room: new.room
                    )
                    guard let id = filed.plantId, let saved = try await database.plant(id: id) else {
                        throw ServerError.failed("The plant was not saved.")
                    }
                    // An answer queued for a re-check when it was made: the plant's record takes its place in the queue.
                    if let queued = new.queuedIdentificationID { try await database.adoptRecheck(from: queued, to: filed.id) }
                    plant = saved
                } else if let existing, let saved = try await database.plant(id: existing) {
                    plant = saved
                    if let first = new.photos.first { try await collection.addPhoto(first, toPlant: existing) }
                } else {
                    plant = try await collection.addPlant(
                        name: new.scientificName, nickname: new.nickname, room: new.room, photo: new.photos.first
                    )
                }
                // The other photos of the same plant join it, in the order they were sent.
                for photo in new.photos.dropFirst() { try await collection.addPhoto(photo, toPlant: plant.id) }
                return entry(plant, photoID: try await database.details(ofPlant: plant.id).photos.last?.sha256)
            },
            photo: { id in
                guard let photo = try await storedPhoto(id, database: database) else { return nil }
                return try? Data(contentsOf: collection.photos.url(of: photo))
            },
            thumbnail: { id in
                guard let photo = try await storedPhoto(id, database: database) else { return nil }
                if let url = collection.photos.thumbnailURL(of: photo), let data = try? Data(contentsOf: url) { return data }
                return try? Data(contentsOf: collection.photos.url(of: photo))
            },
            addPhoto: { id, data in
                let plant = try await existingPlant(id, database: database)
                // Decoding and re-encoding is heavy: the collection does it on the work pool, as identifying is.
                do {
                    try await collection.addPhoto(data, toPlant: plant)
                } catch StoreError.photo(let reason) {
                    // The photo itself is at fault (damaged, too small, too many pixels): the sender's to fix.
                    throw ServerError.unprocessable("The photo could not be stored: \(reason)")
                }
            },
            removePhoto: { id, photoID in
                let plant = try await existingPlant(id, database: database)
                try await requirePhoto(photoID, of: plant, database: database)
                try await collection.removePhoto(photoID, fromPlant: plant)
            },
            setCover: { id, photoID in
                let plant = try await existingPlant(id, database: database)
                try await requirePhoto(photoID, of: plant, database: database)
                try await database.setCoverPhoto(photoID, ofPlant: plant, now: collection.now())
            },
            update: { id, edit in
                guard let number = plantID(id), var plant = try await database.plant(id: number) else {
                    throw ServerError.notFound("That plant in your collection")
                }
                plant.nickname = edit.nickname
                plant.room = edit.room
                plant.notes = edit.notes
                try await database.updatePlant(plant, now: collection.now())
            },
            remove: { id in try await collection.removePlant(id: try await existingPlant(id, database: database)) }
        )
    }

    /// The recorded photo with this id (a SHA-256 in lower-case hex), or `nil`.
    private static func storedPhoto(_ id: String, database: any CollectionStore) async throws -> StoredPhoto? {
        guard id.count == 64, id.allSatisfy(\.isHexDigit) else { return nil }
        return try await database.photo(sha256: id)
    }

    /// The number of a plant of the collection, or "not found" before anything is written.
    private static func existingPlant(_ id: String, database: any CollectionStore) async throws -> Int64 {
        guard let number = plantID(id), try await database.plant(id: number) != nil else {
            throw ServerError.notFound("That plant in your collection")
        }
        return number
    }

    /// "Not found" unless the photo is one of the plant's.
    private static func requirePhoto(_ photoID: String, of plant: Int64, database: any CollectionStore) async throws {
        guard try await database.photos(ofPlant: plant).contains(where: { $0.photo.sha256 == photoID }) else {
            throw ServerError.notFound("That photo of the plant")
        }
    }

    /// How many due tasks say why their date is what it is (each reads its plant's log).
    static let explainedTasks = 200

    private static func careCapability(_ planners: HouseholdPlanners, timeZone: TimeZone) -> CareCapability {
        CareCapability(
            due: { through in
                let planner = try await planners.current()
                let days = max(0, CalendarDay(through, in: timeZone).days(since: planner.today))
                let tasks = try await planner.due(withinDays: days).tasks
                // Why each date is what it is reads each plant's log: said for the first tasks (a page's worth), not for
                // a whole large household's list.
                let explained = try await planner.explained(Array(tasks.prefix(Self.explainedTasks)))
                return (explained + tasks.dropFirst(Self.explainedTasks)).compactMap { task in
                    guard let due = task.dueOn else { return nil }
                    return DueCareItem(
                        id: "\(task.plantId)-\(task.task.rawValue)", plantID: String(task.plantId), plantName: task.plantName,
                        action: task.task.rawValue.capitalized, due: date(due, timeZone: timeZone), room: task.room,
                        why: task.explanation?.text
                    )
                }
            },
            markDone: { id in
                let planner = try await planners.current()
                let (plant, task) = try await scheduledTask(id, planner: planner)
                _ = try await planner.markDone(plantId: plant, task: task)
            },
            snooze: { id, days in
                let planner = try await planners.current()
                let (plant, task) = try await scheduledTask(id, planner: planner)
                _ = try await planner.snooze(plantId: plant, task: task, days: days)
            },
            calendar: { alarmMinute in
                let planner = try await planners.current()
                let today = planner.today
                let tasks = try await planner.upcoming(through: today.adding(days: 60))
                return ICalendarWriter(now: Date(), alarmMinute: alarmMinute).calendar(for: tasks, today: today)
            },
            checkSoil: { id, soil in
                guard let reading = SoilReading(rawValue: soil) else {
                    throw ServerError.badRequest("Say what the soil was like: wet or dry.")
                }
                let planner = try await planners.current()
                let (plant, task) = try await scheduledTask(id, planner: planner)
                // Only a watering has a soil check: for any other task there is nothing at that address.
                guard task == .water else {
                    throw ServerError.notFound("A soil check of \(task.rawValue) (the soil tells when to water, nothing else)")
                }
                _ = try await planner.checkSoil(plantId: plant, reading: reading)
            },
            undoLast: { id in
                let planner = try await planners.current()
                guard let plant = plantID(id), try await planner.store.plant(id: plant) != nil else {
                    throw ServerError.notFound("That plant in your collection")
                }
                guard let (removed, _) = try await planner.undoLastEntry(plantId: plant) else { return nil }
                return removed.summary.prefix(1).uppercased() + removed.summary.dropFirst() + " on \(removed.day)"
            },
            markDoneMany: { ids, daysAgo in
                let planner = try await planners.current()
                guard (0...7).contains(daysAgo) else { throw ServerError.badRequest("Care can be logged for the last 7 days.") }
                // Every task is checked before anything is logged.
                var tasks: [(Int64, CareTask)] = []
                for id in ids { tasks.append(try await scheduledTask(id, planner: planner)) }
                let day = planner.today.adding(days: -daysAgo)
                for (plant, task) in tasks { _ = try await planner.markDone(plantId: plant, task: task, on: day) }
                return tasks.count
            },
            setConditions: { id, conditions in
                let planner = try await planners.current()
                guard let plant = plantID(id), try await planner.store.plant(id: plant) != nil else {
                    throw ServerError.notFound("That plant in your collection")
                }
                do {
                    try await planner.setConditions(plantId: plant, conditions)
                } catch let error as StoreError {
                    if case .invalid(let message) = error { throw ServerError.badRequest(message) }
                    throw error
                }
            },
            settings: { try await planners.settingsOfCurrent() },
            changeSettings: { hemisphere, timeZone in try await planners.change(hemisphere: hemisphere, timeZone: timeZone) }
        )
    }

    /// A care task id, `<plant>-<task>` as ``DueCareItem/id`` writes it, of a task the plant has: anything
    /// else is "not found" before a thing is written.
    private static func scheduledTask(_ id: String, planner: CarePlanner) async throws -> (Int64, CareTask) {
        let notFound = ServerError.notFound("The care task “\(id)”")
        guard let dash = id.firstIndex(of: "-"), let plant = plantID(id[..<dash]),
              let task = CareTask(rawValue: String(id[id.index(after: dash)...]))
        else { throw notFound }
        guard try await planner.schedule(forPlant: plant).contains(where: { $0.task == task }) else { throw notFound }
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
            photoID: photoID, added: plant.createdAt, notes: plant.notes
        )
    }

    private static func day(_ day: CalendarDay) -> Date { date(day, timeZone: .current) }

    private static func date(_ day: CalendarDay, timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = day.components
        return calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day, hour: 9)) ?? Date()
    }

}

/// The care planner of the household a request acts for (``HouseholdScope/current``): its hemisphere and time zone from
/// its settings (`care.hemisphere`, `care.timeZone`), the server's where it chose none. Read on every request, so a
/// change in Settings (or by `plantguide household set`, or on another replica) applies at once.
struct HouseholdPlanners: Sendable {
    /// The planner with the server's settings.
    let base: CarePlanner
    /// Where households' settings are kept; `nil` when the store keeps none.
    let settings: (any ServerStateStore)?
    /// The server's hemisphere and time zone.
    let defaults: CareSettings

    /// The planner for the current household.
    func current() async throws -> CarePlanner {
        base.with(try await settingsOfCurrent())
    }

    /// The current household's hemisphere and time zone.
    func settingsOfCurrent() async throws -> CareSettings {
        guard let settings, let household = HouseholdScope.current?.household else { return defaults }
        return CareSettings(settings: try await settings.householdSettings(household: household), defaults: defaults)
    }

    /// Chooses the current household's hemisphere and time zone (see ``CareSettings/changes(hemisphere:timeZone:)``).
    func change(hemisphere: String?, timeZone: String?) async throws {
        guard let settings, let household = HouseholdScope.current?.household else {
            throw ServerError.capabilityMissing("This server cannot keep care settings per household.")
        }
        let changes: [(HouseholdSettingKey, String?)]
        do {
            changes = try CareSettings.changes(hemisphere: hemisphere, timeZone: timeZone)
        } catch {
            throw ServerError.badRequest("\(error)")
        }
        for (key, value) in changes {
            try await settings.setHouseholdSetting(key, to: value, household: household, now: base.now())
        }
    }
}

