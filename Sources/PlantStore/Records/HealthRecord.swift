import Foundation
import PlantGuideCore

/// A diagnosis kept in a plant's history: what the disease service said about some photos of the plant, the photos
/// themselves, and who kept it when. Kept because its owner chose to ("Keep in the plant's history", `diagnose --save`).
///
/// A record made while Pl@ntNet could not be reached has no diagnosis yet: it *waits* (``waiting``), and the re-check
/// queue sends its photos when Pl@ntNet can be reached again and fills the answer in (or, after
/// ``maximumAttempts`` failed tries or a refusal, gives up and says why).
public struct HealthRecord: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// Identity across collections (an import adds a record once).
    public var uuid: String
    /// The plant it belongs to.
    public var plantId: Int64
    /// The disease service's answer, candidates and their reference photos included; `nil` while the record waits for
    /// Pl@ntNet or after sending it was given up (see ``waiting``).
    public var diagnosis: Diagnosis?
    /// For a record kept without an answer: how sending it goes. `nil` once Pl@ntNet answered.
    public var waiting: HealthRecordWait?
    /// The photos sent, in the order they were sent, each with the organ it shows.
    public var photos: [HealthRecordPhoto]
    /// The owner's own words, if any.
    public var note: String?
    /// The name of the account that kept it (`nil` from the command line, or without accounts).
    public var recordedBy: String?
    /// When it was kept.
    public var recordedAt: Date

    /// A record as a store reads it.
    package init(
        id: Int64, uuid: String, plantId: Int64, diagnosis: Diagnosis?, waiting: HealthRecordWait? = nil,
        photos: [HealthRecordPhoto], note: String?, recordedBy: String?, recordedAt: Date
    ) {
        self.id = id
        self.uuid = uuid
        self.plantId = plantId
        self.diagnosis = diagnosis
        self.waiting = diagnosis == nil ? waiting : nil
        self.photos = photos
        self.note = note
        self.recordedBy = recordedBy
        self.recordedAt = recordedAt
    }

    /// After this many failed tries, a waiting record stops being sent (it stays in the history, with its photos).
    public static let maximumAttempts = 5

    /// Whether the record still waits for Pl@ntNet's answer (neither answered nor given up).
    public var isWaiting: Bool { diagnosis == nil && waiting?.gaveUpAt == nil }

    /// One line for a history: "Diagnosis: Grey mould (BOTRCI) 62 %", that nothing was found, that it waits for
    /// Pl@ntNet, or why it was not made.
    public var summary: String {
        guard let diagnosis else {
            if let wait = waiting, wait.gaveUpAt != nil {
                return "Diagnosis: not made (\(wait.lastError ?? "Pl@ntNet could not answer"))"
            }
            return "Diagnosis: waiting for Pl@ntNet"
        }
        guard let best = diagnosis.candidates.first else { return "Diagnosis: no disease found" }
        return "Diagnosis: \(best.title) \(Int((best.score * 100).rounded())) %"
    }
}

/// How sending a health record kept without an answer goes: it waits for Pl@ntNet, is tried again by the re-check
/// queue, and is given up after ``HealthRecord/maximumAttempts`` failures or a refusal.
public struct HealthRecordWait: Sendable, Hashable, Codable {
    /// The language the diseases' names are asked in.
    public var language: String
    /// Tries made so far.
    public var attempts: Int
    /// Why the last try failed, if one did.
    public var lastError: String?
    /// When sending was given up; `nil` while the record waits.
    public var gaveUpAt: Date?

    /// Describes a record's wait.
    public init(language: String, attempts: Int = 0, lastError: String? = nil, gaveUpAt: Date? = nil) {
        self.language = language
        self.attempts = attempts
        self.lastError = lastError
        self.gaveUpAt = gaveUpAt
    }
}

/// One photo of a ``HealthRecord``.
public struct HealthRecordPhoto: Sendable, Hashable, Codable {
    /// The stored photo's SHA-256.
    public var sha256: String
    /// The organ it shows, as the disease service was told (`leaf`, `flower`, `fruit`, `bark` or `auto`).
    public var organ: String

    /// A photo of a record.
    public init(sha256: String, organ: String) {
        self.sha256 = sha256
        self.organ = organ
    }
}

/// A health record to keep: the answer (or the language to ask for one in, when Pl@ntNet cannot be reached now), its
/// photos (already stored by ``PhotoLibrary``) with their organs, and a note.
public struct NewHealthRecord: Sendable {
    /// The answer; `nil` for a record that waits for Pl@ntNet.
    public var diagnosis: Diagnosis?
    /// For a record that waits: the language the diseases' names will be asked in.
    public var language: String?
    public var photos: [(photo: StoredPhoto, organ: String)]
    public var note: String?

    /// Describes a record to keep with its answer.
    public init(diagnosis: Diagnosis, photos: [(photo: StoredPhoto, organ: String)], note: String? = nil) {
        self.diagnosis = diagnosis
        self.language = nil
        self.photos = photos
        self.note = note
    }

    /// Describes a record to keep without an answer: it waits until the re-check queue can send its photos to Pl@ntNet.
    public init(waitingIn language: String, photos: [(photo: StoredPhoto, organ: String)], note: String? = nil) {
        self.diagnosis = nil
        self.language = language
        self.photos = photos
        self.note = note
    }

    /// Organs a record's photo may show: those the disease service takes.
    public static let organs: Set<String> = ["leaf", "flower", "fruit", "bark", "auto"]
    /// The most photos one record keeps (one request's worth).
    public static let maximumPhotos = PhotoUploadRules.maximumPhotos
    /// The longest note, in characters.
    public static let maximumNoteCharacters = 2_000

    /// The record's fields checked: 1–5 photos, organs the service takes, a note within its length (blank is none).
    package func checked() throws(StoreError) -> NewHealthRecord {
        var copy = self
        copy.note = note.nonEmpty
        try Self.check(organs: photos.map(\.organ), note: copy.note)
        if diagnosis == nil {
            guard let language, HealthRecordWait.isLanguage(language) else {
                throw .invalid("a health record without a diagnosis needs the language to ask Pl@ntNet in (e.g. en)")
            }
        }
        return copy
    }

    /// Checks a record's photos (by their organs, one per photo) and note before anything is stored.
    package static func check(organs: [String], note: String?) throws(StoreError) {
        guard (1...maximumPhotos).contains(organs.count) else {
            throw .invalid("a health record keeps 1 to \(maximumPhotos) photos (\(organs.count) given)")
        }
        for organ in organs where !Self.organs.contains(organ) {
            throw .invalid("a health record's photo shows a leaf, flower, fruit, bark or auto, not “\(organ)”")
        }
        // Counted as both databases count a text's length: in Unicode scalars.
        if let note = note.nonEmpty, note.unicodeScalars.count > maximumNoteCharacters {
            throw .invalid("a health record's note is at most \(maximumNoteCharacters) characters (\(note.unicodeScalars.count) given)")
        }
    }
}

extension HealthRecordWait {
    /// Whether `code` can be a language code Pl@ntNet is asked in (`en`, `pt-BR`): 1–16 letters and hyphens.
    package static func isLanguage(_ code: String) -> Bool {
        (1...16).contains(code.count) && code.allSatisfy { ($0.isASCII && $0.isLetter) || $0 == "-" }
    }
}

/// The `diagnosis` column's JSON: keys sorted, instants as milliseconds since 1970, the same on both stores.
package enum DiagnosisColumn {
    package static func encode(_ diagnosis: Diagnosis) throws(StoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        do {
            return String(decoding: try encoder.encode(diagnosis), as: UTF8.self)
        } catch {
            throw .invalid("the diagnosis could not be written (\(error))")
        }
    }

    package static func decode(_ text: String, record id: Int64) throws(StoreError) -> Diagnosis {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(Diagnosis.self, from: Data(text.utf8))
        } catch {
            throw .invalid("health record \(id) has an unreadable diagnosis")
        }
    }
}
