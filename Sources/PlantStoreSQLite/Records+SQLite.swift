import Foundation
import GRDB
import PlantGuideCore
import PlantStore

// How the collection's records are read from and written to SQLite rows (GRDB's record protocols). The records
// themselves live in PlantStore, which knows no database library.

extension Plant: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "plant"

    /// The columns, in the order `init(row:)` reads them by position (faster than by name, which
    /// matters when listing thousands of plants).
    /// Times come as whole milliseconds computed by SQLite, which is cheaper than parsing text.
    static let columnList = """
        id, uuid, name, species, nickname, room, acquiredOn, notes, \
        CAST(round((julianday(createdAt) - 2440587.5) * 86400000) AS INTEGER) AS createdAt, \
        CAST(round((julianday(updatedAt) - 2440587.5) * 86400000) AS INTEGER) AS updatedAt
        """
    public static var databaseSelection: [any SQLSelectable] { [SQL(sql: columnList)] }

    /// The plant with this id, read with ``columnList``.
    static func fetch(_ db: Database, id: Int64) throws -> Plant? {
        try Plant.fetchOne(db, sql: "SELECT \(columnList) FROM plant WHERE id = ?", arguments: [id])
    }

    public init(row: Row) throws {
        self.init(
            id: row[0], uuid: row[1], name: row[2], species: row[3], nickname: row[4], room: row[5],
            acquiredOn: (row[6] as String?).flatMap(CalendarDay.init), notes: row[7],
            createdAt: Self.date(milliseconds: row[8]), updatedAt: Self.date(milliseconds: row[9])
        )
    }

    private static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    public func encode(to container: inout PersistenceContainer) throws {
        // Zero means "not inserted yet": SQLite assigns the next id.
        container["id"] = id > 0 ? id : nil
        container["uuid"] = uuid
        container["name"] = name
        container["species"] = species
        container["nickname"] = nickname
        container["room"] = room
        container["acquiredOn"] = acquiredOn?.description
        container["notes"] = notes
        container["createdAt"] = createdAt
        container["updatedAt"] = updatedAt
    }
}

extension CareEvent: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "careEvent"

    public init(row: Row) throws {
        let id: Int64 = row["id"]
        guard let task = CareTask(rawValue: row["task"]), let day = CalendarDay(row["day"] as String) else {
            throw StoreError.invalid("care event \(id) has an unreadable task or day")
        }
        var soil: SoilReading?
        if let soilText = row["soil"] as String? {
            guard let reading = SoilReading(rawValue: soilText) else { throw StoreError.invalid("care event \(id) has an unknown soil reading") }
            soil = reading
        }
        self.init(
            id: id, uuid: row["uuid"], plantId: row["plantId"], task: task, day: day, note: row["note"],
            createdAt: row.timestamp("createdAt"), recordedBy: row["recordedBy"], soil: soil
        )
    }

    public func encode(to container: inout PersistenceContainer) throws {
        // Zero means "not inserted yet": SQLite assigns the next id.
        container["id"] = id > 0 ? id : nil
        container["uuid"] = uuid
        container["plantId"] = plantId
        container["task"] = task.rawValue
        container["day"] = day.description
        container["note"] = note
        container["createdAt"] = createdAt
        container["recordedBy"] = recordedBy
        container["soil"] = soil?.rawValue
    }
}

extension CareScheduleSettings: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "careSchedule"

    public init(row: Row) throws {
        let plantId: Int64 = row["plantId"]
        guard let task = CareTask(rawValue: row["task"]) else {
            throw StoreError.invalid("care schedule of plant \(plantId) has an unknown task")
        }
        self.init(
            plantId: plantId, task: task, growingDays: row["growingDays"], restDays: row["restDays"], paused: row["paused"],
            snoozedUntil: (row["snoozedUntil"] as String?).flatMap(CalendarDay.init), learnedGrowing: row["learnedGrowing"],
            learnedRest: row["learnedRest"], learnedSince: (row["learnedSince"] as String?).flatMap(CalendarDay.init),
            conditions: try Self.conditions(decoding: row["conditions"], plantId: plantId)
        )
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["plantId"] = plantId
        container["task"] = task.rawValue
        container["growingDays"] = growingDays
        container["restDays"] = restDays
        container["paused"] = paused
        container["snoozedUntil"] = snoozedUntil?.description
        container["learnedGrowing"] = learnedGrowing
        container["learnedRest"] = learnedRest
        container["learnedSince"] = learnedSince?.description
        container["conditions"] = Self.encoded(conditions)
    }
}

extension FiledIdentification: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "identification"

    public init(row: Row) throws {
        try self.init(
            id: row["id"], uuid: row["uuid"], plantId: row["plantId"], photoSHA256: row["photoSHA256"], source: row["source"],
            model: row["model"], predictionsJSON: row["predictions"], uncertain: row["uncertain"], timingsJSON: row["timings"],
            identifiedAt: row.timestamp("identifiedAt"), chosenSpecies: row["chosenSpecies"], recheckOf: row["recheckOf"],
            recordedBy: row["recordedBy"]
        )
    }

    public func encode(to container: inout PersistenceContainer) throws {
        // Zero means "not inserted yet": SQLite assigns the next id.
        container["id"] = id > 0 ? id : nil
        container["uuid"] = uuid
        container["plantId"] = plantId
        container["photoSHA256"] = photoSHA256
        container["source"] = identification.source.rawValue
        container["model"] = identification.model
        container["predictions"] = try predictionsJSON()
        container["uncertain"] = identification.uncertain
        container["timings"] = try timingsJSON()
        container["chosenSpecies"] = chosenSpecies
        container["recheckOf"] = recheckOf
        container["identifiedAt"] = identification.date
        container["recordedBy"] = recordedBy
    }
}

extension RecheckItem {
    /// A queue item from its row and its photos (read separately).
    init(row: Row, photos: [RecheckPhoto]) throws {
        guard let reason = RecheckReason(rawValue: row["reason"]), let state = RecheckState(rawValue: row["state"]) else {
            throw StoreError.invalid("re-check \(row["id"] as Int64) has an unknown reason or state")
        }
        self.init(
            id: row["id"], identificationId: row["identificationId"], plantId: row["plantId"], reason: reason, state: state,
            queuedAt: row.timestamp("queuedAt"), expiresAt: row["expiresAt"] == nil ? nil : row.timestamp("expiresAt"),
            attempts: row["attempts"], lastError: row["lastError"], resultId: row["resultId"],
            finishedAt: row["finishedAt"] == nil ? nil : row.timestamp("finishedAt"), photos: photos
        )
    }
}

extension SpeciesSuggestion: FetchableRecord {
    public init(row: Row) throws {
        guard let kind = Kind(rawValue: row["kind"]) else { throw StoreError.invalid("suggestion \(row["id"] as Int64) has an unknown kind") }
        self.init(
            id: row["id"], plantId: row["plantId"], kind: kind, identificationId: row["identificationId"],
            previousIdentificationId: row["previousIdentificationId"], currentSpecies: row["currentSpecies"],
            previousSpecies: row["previousSpecies"], previousConfidence: row["previousConfidence"],
            previousModel: row["previousModel"], suggestedSpecies: row["suggestedSpecies"], confidence: row["confidence"],
            model: row["model"], createdAt: row.timestamp("createdAt"),
            resolution: (row["resolution"] as String?).flatMap(Resolution.init(rawValue:)),
            resolvedAt: row["resolvedAt"] == nil ? nil : row.timestamp("resolvedAt")
        )
    }
}

extension StoredPhoto: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "photo"

    public init(row: Row) throws {
        self.init(
            sha256: row["sha256"], originalSHA256: row["originalSHA256"], mediaType: row["mediaType"], byteCount: row["byteCount"],
            width: row["width"], height: row["height"], thumbnailSHA256: row["thumbnailSHA256"], createdAt: row.timestamp("createdAt")
        )
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["sha256"] = sha256
        container["originalSHA256"] = originalSHA256
        container["mediaType"] = mediaType
        container["byteCount"] = byteCount
        container["width"] = width
        container["height"] = height
        container["thumbnailSHA256"] = thumbnailSHA256
        container["createdAt"] = createdAt
    }
}
