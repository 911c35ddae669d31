import Foundation
import PlantGuideCore

/// The documented JSON form of a whole collection: `collection.json` inside an export archive.
///
/// Plants, events and identifications are identified by UUIDs, photos by SHA-256, so importing into
/// a collection that already holds some of them adds only what is missing. Local integer ids are not
/// part of the format. Timestamps are ISO 8601 with milliseconds; days are `YYYY-MM-DD`.
public struct CollectionExport: Sendable, Codable, Hashable {
    /// Always `plantguide-collection`.
    public var format: String
    /// Version of this format; importers refuse versions newer than they know.
    public var formatVersion: Int
    public var exportedAt: Date
    /// The PlantGuide version that wrote it.
    public var generator: String
    public var plants: [ExportedPlant]
    public var photos: [ExportedPhoto]
    public var identifications: [ExportedIdentification]

    public static let formatName = "plantguide-collection"
    public static let currentVersion = 1

    public struct ExportedPlant: Sendable, Codable, Hashable {
        public var uuid: String
        public var name: String
        public var species: String?
        public var nickname: String?
        public var room: String?
        public var acquiredOn: CalendarDay?
        public var notes: String?
        public var createdAt: Date
        public var updatedAt: Date
        public var careProfile: CareProfile?
        public var schedules: [ExportedSchedule]
        public var photos: [ExportedPhotoLink]
        public var events: [ExportedEvent]
        /// The diagnoses kept in its history, by UUID; absent in archives before health records existed.
        public var healthRecords: [ExportedHealthRecord]?
    }

    public struct ExportedHealthRecord: Sendable, Codable, Hashable {
        public var uuid: String
        /// The disease service's answer as it was kept; absent for a record that waits for Pl@ntNet.
        public var diagnosis: Diagnosis?
        /// For a record kept without an answer: its language, tries and whether sending was given up (absent in
        /// archives before records could wait).
        public var waiting: HealthRecordWait?
        /// Its photos in the order sent (each in ``CollectionExport/photos``), with their organs.
        public var photos: [HealthRecordPhoto]
        public var note: String?
        public var recordedBy: String?
        public var recordedAt: Date
    }

    public struct ExportedSchedule: Sendable, Codable, Hashable {
        public var task: CareTask
        public var growingDays: Int?
        public var restDays: Int?
        public var paused: Bool
        public var snoozedUntil: CalendarDay?
        /// The learned intervals (see ``CareScheduleSettings/learnedGrowing``); absent in archives before they existed.
        public var learnedGrowing: Double?
        public var learnedRest: Double?
        public var learnedSince: CalendarDay?
        /// Where the plant lives (on the watering row); absent when nothing is said.
        public var conditions: PlantConditions?
    }

    public struct ExportedPhotoLink: Sendable, Codable, Hashable {
        public var sha256: String
        public var addedAt: Date

        /// A link to a photo, added to the plant at `addedAt`.
        package init(sha256: String, addedAt: Date) {
            self.sha256 = sha256
            self.addedAt = addedAt
        }
    }

    public struct ExportedEvent: Sendable, Codable, Hashable {
        public var uuid: String
        public var task: CareTask
        public var day: CalendarDay
        public var note: String?
        public var createdAt: Date
        /// For a soil check, what the soil was like; absent for care done (and in archives before checks existed).
        public var soil: SoilReading?
    }

    public struct ExportedPhoto: Sendable, Codable, Hashable {
        public var sha256: String
        public var originalSHA256: String
        public var mediaType: String
        public var byteCount: Int
        public var width: Int?
        public var height: Int?
        public var thumbnailSHA256: String?
        public var createdAt: Date
        /// Path of the file inside the archive, e.g. `photos/<sha256>.jpg`.
        public var file: String
        /// Path of the thumbnail inside the archive, if any.
        public var thumbnail: String?
    }

    public struct ExportedIdentification: Sendable, Codable, Hashable {
        public var uuid: String
        public var plantUUID: String?
        public var photoSHA256: String?
        public var source: IdentificationSource
        public var model: String?
        public var predictions: [SpeciesPrediction]
        public var uncertain: Bool
        public var chosenSpecies: String?
        public var identifiedAt: Date
    }
}

extension CollectionExport {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Self.timestampFormatter().string(from: date))
        }
        return encoder
    }

    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Self.timestampFormatter().date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not an ISO 8601 timestamp: \(text)")
            }
            return date
        }
        return decoder
    }

    private static func timestampFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

extension CollectionExport.ExportedPhoto {
    /// The photo record this archive entry stands for.
    package var storedPhoto: StoredPhoto {
        StoredPhoto(
            sha256: sha256, originalSHA256: originalSHA256, mediaType: mediaType, byteCount: byteCount, width: width,
            height: height, thumbnailSHA256: thumbnailSHA256, createdAt: createdAt
        )
    }
}

/// What an import added and what it found already present.
public struct ImportSummary: Sendable, Hashable, Codable {
    public var plantsAdded = 0
    public var plantsAlreadyPresent = 0
    public var eventsAdded = 0
    public var photosAdded = 0
    public var identificationsAdded = 0
    public var healthRecordsAdded = 0

    /// Nothing added yet.
    package init() {}
}
