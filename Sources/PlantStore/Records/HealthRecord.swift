import Foundation
import PlantGuideCore

/// A diagnosis kept in a plant's history: what the disease service said about some photos of the plant, the photos
/// themselves, and who kept it when. Kept because its owner chose to ("Keep in the plant's history", `diagnose --save`).
public struct HealthRecord: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// Identity across collections (an import adds a record once).
    public var uuid: String
    /// The plant it belongs to.
    public var plantId: Int64
    /// The disease service's answer, candidates and their reference photos included.
    public var diagnosis: Diagnosis
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
        id: Int64, uuid: String, plantId: Int64, diagnosis: Diagnosis, photos: [HealthRecordPhoto], note: String?,
        recordedBy: String?, recordedAt: Date
    ) {
        self.id = id
        self.uuid = uuid
        self.plantId = plantId
        self.diagnosis = diagnosis
        self.photos = photos
        self.note = note
        self.recordedBy = recordedBy
        self.recordedAt = recordedAt
    }

    /// One line for a history: "Diagnosis: Grey mould (BOTRCI) 62 %", or that nothing was found.
    public var summary: String {
        guard let best = diagnosis.candidates.first else { return "Diagnosis: no disease found" }
        return "Diagnosis: \(best.title) \(Int((best.score * 100).rounded())) %"
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

/// A health record to keep: the answer, its photos (already stored by ``PhotoLibrary``) with their organs, and a note.
public struct NewHealthRecord: Sendable {
    public var diagnosis: Diagnosis
    public var photos: [(photo: StoredPhoto, organ: String)]
    public var note: String?

    /// Describes a record to keep.
    public init(diagnosis: Diagnosis, photos: [(photo: StoredPhoto, organ: String)], note: String? = nil) {
        self.diagnosis = diagnosis
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
