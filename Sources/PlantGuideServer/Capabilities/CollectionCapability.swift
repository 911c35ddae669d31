import Foundation
import PlantGuideCore
import PlantStore

/// A plant in the user's collection, as the pages show it.
public struct CollectionEntry: Sendable, Codable, Hashable {
    /// Stable id.
    public var id: String
    /// Scientific name.
    public var scientificName: String
    /// The name the user gave it, if any.
    public var nickname: String?
    /// Common name, if known.
    public var commonName: String?
    /// Room, if set.
    public var room: String?
    /// Id of its cover photo (chosen, else the newest), if any.
    public var photoID: String?
    /// When it was added.
    public var added: Date
    /// The owner's notes, if any.
    public var notes: String?

    /// Creates an entry.
    public init(
        id: String, scientificName: String, nickname: String? = nil, commonName: String? = nil, room: String? = nil,
        photoID: String? = nil, added: Date, notes: String? = nil
    ) {
        self.id = id
        self.scientificName = scientificName
        self.nickname = nickname
        self.commonName = commonName
        self.room = room
        self.photoID = photoID
        self.added = added
        self.notes = notes
    }
}

/// One of a plant's photos.
public struct CollectionPhoto: Sendable, Codable, Hashable {
    /// The photo's id (the SHA-256 of its stored file): `/collection/photos/{id}`, and `/thumbnail` after it.
    public var id: String
    /// Whether it stands for the plant in the collection.
    public var isCover: Bool
    /// When it was added to the plant.
    public var added: Date

    /// Creates a photo.
    public init(id: String, isCover: Bool, added: Date) {
        self.id = id
        self.isCover = isCover
        self.added = added
    }
}

/// One identification filed with a plant.
public struct CollectionIdentification: Sendable, Codable, Hashable {
    public var date: Date
    /// The species chosen, else the best candidate; `nil` when there was none.
    public var species: String?
    /// The best candidate's confidence in 0…1.
    public var confidence: Double?
    public var source: IdentificationSource
    /// The model or API version, e.g. `resnet18` or `2025-01-17`.
    public var model: String?
    /// Where it stands with the re-check queue, e.g. "waiting for a Pl@ntNet re-check", or what it is ("Pl@ntNet
    /// re-check"); `nil` for an ordinary identification.
    public var recheckNote: String? = nil

    /// Creates an identification.
    public init(date: Date, species: String?, confidence: Double?, source: IdentificationSource, model: String?) {
        self.date = date
        self.species = species
        self.confidence = confidence
        self.source = source
        self.model = model
    }

    /// E.g. "Identified as Monstera deliciosa, 91 % · Pl@ntNet 2025-01-17" or "… · on device, resnet18".
    public var summary: String {
        // A no-break space keeps the number and its sign on one line.
        let confidence = confidence.map { ", \(Int(($0 * 100).rounded()))\u{00A0}%" } ?? ""
        let origin: String
        switch source {
        // The service's version may already name it ("Pl@ntNet 2025-01-17 (7.3)").
        case .plantNetAPI: origin = model.map { $0.hasPrefix("Pl@ntNet") ? $0 : "Pl@ntNet \($0)" } ?? "Pl@ntNet"
        case .cache: origin = "Pl@ntNet (cached)" + (model.map { " \($0.hasPrefix("Pl@ntNet ") ? String($0.dropFirst(9)) : $0)" } ?? "")
        case .onDevice: origin = "on device" + (model.map { ", \($0)" } ?? "")
        }
        return "Identified as \(species ?? "no species")\(confidence) · \(origin)" + (recheckNote.map { " · \($0)" } ?? "")
    }
}

/// One care task of a plant and when it is next due.
public struct CollectionCareTask: Sendable, Codable, Hashable {
    /// The task's id for ``CareCapability`` (`/care/{id}/done`).
    public var id: String
    /// What to do, e.g. "Water".
    public var action: String
    /// When it is next due; `nil` when it is not scheduled (no interval now, or paused).
    public var due: Date?
    /// Days between times in the current season, when scheduled.
    public var intervalDays: Int?
    /// When it was last done.
    public var lastDone: Date?
    /// Put off until this day.
    public var snoozedUntil: Date?
    /// Days past its due day (0 when not overdue).
    public var overdueDays: Int
    /// Why the interval is what it is, e.g. "every 9 days: the guide for genus Goeppertia says 7 in the growing season;
    /// the soil was still wet when due twice in October 2026 (+2)".
    public var explanation: String?
    /// Whether the soil can be checked for this task (watering).
    public var checksSoil: Bool

    /// Creates a task.
    public init(
        id: String, action: String, due: Date?, intervalDays: Int?, lastDone: Date?, snoozedUntil: Date? = nil, overdueDays: Int = 0,
        explanation: String? = nil, checksSoil: Bool = false
    ) {
        self.explanation = explanation
        self.checksSoil = checksSoil
        self.id = id
        self.action = action
        self.due = due
        self.intervalDays = intervalDays
        self.lastDone = lastDone
        self.snoozedUntil = snoozedUntil
        self.overdueDays = overdueDays
    }
}

/// What the plant page's edit form changes: `nil` or blank clears a field.
public struct CollectionEdit: Sendable, Hashable {
    public var nickname: String?
    public var room: String?
    public var notes: String?

    /// Creates an edit.
    public init(nickname: String?, room: String?, notes: String?) {
        self.nickname = nickname
        self.room = room
        self.notes = notes
    }
}

/// One line of a plant's history or care log.
public struct CollectionEvent: Sendable, Codable, Hashable {
    /// When it happened.
    public var date: Date
    /// What happened, e.g. "Watered" or "Identified as Monstera deliciosa (92 %)".
    public var text: String
    /// Who did it: the account's name, when an account did (not from the command line, nor before accounts).
    public var by: String?

    /// Creates an event.
    public init(date: Date, text: String, by: String? = nil) {
        self.date = date
        self.text = text
        self.by = by
    }
}

/// A plant's page: the entry, its photos, identification history, care profile, schedule and care log.
public struct CollectionEntryDetail: Sendable, Codable, Hashable {
    public var entry: CollectionEntry
    /// Photo ids, newest first.
    public var photoIDs: [String]
    /// Identifications and edits, newest first.
    public var history: [CollectionEvent]
    /// Care done.
    public var careLog: [CollectionEvent]
    /// The photos, newest first, with the cover marked.
    public var photos: [CollectionPhoto]
    /// Identifications with their confidence, source and model, newest first.
    public var identifications: [CollectionIdentification]
    /// What the plant wants, when it has a profile.
    public var careProfile: CareProfile?
    /// Every care task and when it is next due.
    public var schedule: [CollectionCareTask]
    /// Where the plant lives (pot, light, heater, outdoors), when anything is said.
    public var conditions: PlantConditions?
    /// Its care log's facts worth checking when it looks sick (never a diagnosis).
    public var careFacts: [CareFact] = []
    /// Diagnoses kept in its history, newest first.
    public var healthRecords: [CollectionHealthRecord] = []

    /// Creates a detail.
    public init(
        entry: CollectionEntry, photoIDs: [String], history: [CollectionEvent], careLog: [CollectionEvent],
        photos: [CollectionPhoto] = [], identifications: [CollectionIdentification] = [], careProfile: CareProfile? = nil,
        schedule: [CollectionCareTask] = [], conditions: PlantConditions? = nil
    ) {
        self.conditions = conditions
        self.entry = entry
        self.photoIDs = photoIDs
        self.history = history
        self.careLog = careLog
        self.photos = photos
        self.identifications = identifications
        self.careProfile = careProfile
        self.schedule = schedule
    }
}

/// A diagnosis kept in a plant's history, as its page shows it.
public struct CollectionHealthRecord: Sendable, Codable, Hashable {
    /// Where a record stands.
    public enum Status: String, Sendable, Codable, Hashable {
        /// Pl@ntNet answered.
        case diagnosed
        /// Kept while Pl@ntNet could not be reached: sent when it can be.
        case waiting
        /// Sending was given up (refused, or too many failed tries); the summary says why.
        case notMade
    }

    /// The record's id.
    public var id: String
    /// When it was kept.
    public var date: Date
    /// Whether it has its answer, waits for it, or was given up.
    public var status: Status
    /// One line: the best candidate and its score, that no disease was found, that it waits, or why it was not made.
    public var summary: String
    /// The likely diseases, best first, with their EPPO codes and scores (empty until Pl@ntNet answered).
    public var candidates: [DiseaseCandidate]
    /// Who kept it, when an account did.
    public var by: String?
    /// The owner's words.
    public var note: String?
    /// Its photos' ids (`/collection/photos/{id}`), in the order sent.
    public var photoIDs: [String]
    /// The disease service's version, once it answered.
    public var model: String?

    /// Creates a record's view.
    public init(
        id: String, date: Date, status: Status = .diagnosed, summary: String, candidates: [DiseaseCandidate], by: String?,
        note: String?, photoIDs: [String], model: String?
    ) {
        self.id = id
        self.date = date
        self.status = status
        self.summary = summary
        self.candidates = candidates
        self.by = by
        self.note = note
        self.photoIDs = photoIDs
        self.model = model
    }
}

/// A diagnosis to keep in a plant's history: the kept answer (or none yet, when Pl@ntNet cannot be reached) and the
/// photos it was asked about.
public struct DiagnosisToKeep: Sendable {
    /// The disease service's answer; `nil` to keep the photos until Pl@ntNet can be reached.
    public var diagnosis: Diagnosis?
    /// The language the diseases are named in (asked in, for a record that waits).
    public var language: String
    /// The photos sent, in order: each original's SHA-256, bytes and organ.
    public var photos: [(sha256: String, data: Data, organ: String)]
    /// The owner's words.
    public var note: String?

    /// Describes a diagnosis to keep.
    public init(diagnosis: Diagnosis?, language: String, photos: [(sha256: String, data: Data, organ: String)], note: String?) {
        self.diagnosis = diagnosis
        self.language = language
        self.photos = photos
        self.note = note
    }
}

/// What "This is my plant" sends: a new plant, or more photos and an identification for one already kept.
public struct NewCollectionEntry: Sendable {
    public var scientificName: String
    public var nickname: String?
    public var room: String?
    /// The photos that were identified, in the order sent.
    public var photos: [Data]
    /// The identification to keep in the plant's history.
    public var identification: Identification?
    /// Add to this plant of the collection instead of adding a new one.
    public var plantID: String?
    /// The same answer, filed unsaved in the re-check queue when it was identified: its queue item moves to the plant.
    public var queuedIdentificationID: Int64? = nil

    /// Creates a request.
    public init(
        scientificName: String, nickname: String? = nil, room: String? = nil, photos: [Data] = [],
        identification: Identification? = nil, plantID: String? = nil
    ) {
        self.scientificName = scientificName
        self.nickname = nickname
        self.room = room
        self.photos = photos
        self.identification = identification
        self.plantID = plantID
    }
}

/// The user's plant collection.
public struct CollectionCapability: Sendable {
    /// Plants, optionally in one room, newest first.
    public var list: @Sendable (_ room: String?) async throws -> [CollectionEntry]
    /// One plant's page, or `nil`.
    public var detail: @Sendable (_ id: String) async throws -> CollectionEntryDetail?
    /// Adds a plant.
    public var add: @Sendable (NewCollectionEntry) async throws -> CollectionEntry
    /// A stored photo's bytes, or `nil`.
    public var photo: @Sendable (_ id: String) async throws -> Data?
    /// A stored photo's small thumbnail (JPEG, 256 px long side), else the photo itself; `nil` when there is none.
    public var thumbnail: @Sendable (_ id: String) async throws -> Data?
    /// Stores a photo with a plant.
    public var addPhoto: @Sendable (_ plantID: String, _ photo: Data) async throws -> Void
    /// Takes a photo off a plant.
    public var removePhoto: @Sendable (_ plantID: String, _ photoID: String) async throws -> Void
    /// Makes one of a plant's photos its cover.
    public var setCover: @Sendable (_ plantID: String, _ photoID: String) async throws -> Void
    /// Changes a plant's nickname, room and notes.
    public var update: @Sendable (_ plantID: String, CollectionEdit) async throws -> Void
    /// Removes a plant, its care log and the photos nothing else uses.
    public var remove: @Sendable (_ plantID: String) async throws -> Void
    /// Keeps a diagnosis in a plant's history; the same answer about the same photos is kept once. `nil` where the
    /// collection cannot (a test's capability without it).
    public var keepDiagnosis: (@Sendable (_ plantID: String, DiagnosisToKeep) async throws -> Void)? = nil
    /// Removes one of a plant's health records (and the photos only it used); "not found" when the plant has none by
    /// that id.
    public var removeHealthRecord: (@Sendable (_ plantID: String, _ recordID: String) async throws -> Void)? = nil

    /// Creates the capability.
    public init(
        list: @escaping @Sendable (_ room: String?) async throws -> [CollectionEntry],
        detail: @escaping @Sendable (_ id: String) async throws -> CollectionEntryDetail?,
        add: @escaping @Sendable (NewCollectionEntry) async throws -> CollectionEntry,
        photo: @escaping @Sendable (_ id: String) async throws -> Data?,
        thumbnail: @escaping @Sendable (_ id: String) async throws -> Data?,
        addPhoto: @escaping @Sendable (_ plantID: String, _ photo: Data) async throws -> Void,
        removePhoto: @escaping @Sendable (_ plantID: String, _ photoID: String) async throws -> Void,
        setCover: @escaping @Sendable (_ plantID: String, _ photoID: String) async throws -> Void,
        update: @escaping @Sendable (_ plantID: String, CollectionEdit) async throws -> Void,
        remove: @escaping @Sendable (_ plantID: String) async throws -> Void
    ) {
        self.list = list
        self.detail = detail
        self.add = add
        self.photo = photo
        self.thumbnail = thumbnail
        self.addPhoto = addPhoto
        self.removePhoto = removePhoto
        self.setCover = setCover
        self.update = update
        self.remove = remove
    }
}
