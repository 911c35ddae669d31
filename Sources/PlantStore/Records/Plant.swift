import Foundation
import GRDB
import PlantGuideCore

/// A plant in the collection.
public struct Plant: Sendable, Hashable, Codable, Identifiable {
    /// Local id, shown to people and used on the command line. Never reused.
    public var id: Int64
    /// Identity across collections (export and import match plants by it).
    public var uuid: String
    /// What the plant is called: the catalog species' name or free text.
    public var name: String
    /// The catalog species, when the plant was matched to one (scientific name).
    public var species: String?
    /// The owner's name for it, e.g. "Monty".
    public var nickname: String?
    /// Room or location, e.g. "Living room".
    public var room: String?
    /// When the owner got it.
    public var acquiredOn: CalendarDay?
    /// Free notes.
    public var notes: String?
    /// When it was added to the collection.
    public var createdAt: Date
    /// When it was last changed.
    public var updatedAt: Date

    /// The name to show: the nickname if there is one, else the name.
    public var displayName: String { nickname ?? name }

    /// A plant record as a store reads or writes it.
    package init(
        id: Int64, uuid: String, name: String, species: String?, nickname: String?, room: String?, acquiredOn: CalendarDay?,
        notes: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.uuid = uuid
        self.name = name
        self.species = species
        self.nickname = nickname
        self.room = room
        self.acquiredOn = acquiredOn
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What is needed to add a plant; the store assigns ids and timestamps.
public struct NewPlant: Sendable, Hashable {
    public var name: String
    public var species: String?
    public var nickname: String?
    public var room: String?
    public var acquiredOn: CalendarDay?
    public var notes: String?
    /// The species the owner confirms by adding it (its photos become exemplars of it), if any.
    public var confirmation: SpeciesConfirmation?

    /// Describes a plant to add. `name` must not be empty.
    public init(
        name: String, species: String? = nil, nickname: String? = nil, room: String? = nil,
        acquiredOn: CalendarDay? = nil, notes: String? = nil, confirmation: SpeciesConfirmation? = nil
    ) {
        self.name = name
        self.species = species
        self.nickname = nickname
        self.room = room
        self.acquiredOn = acquiredOn
        self.notes = notes
        self.confirmation = confirmation
    }
}

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
        id = row[0]
        uuid = row[1]
        name = row[2]
        species = row[3]
        nickname = row[4]
        room = row[5]
        acquiredOn = (row[6] as String?).flatMap(CalendarDay.init)
        notes = row[7]
        createdAt = Self.date(milliseconds: row[8])
        updatedAt = Self.date(milliseconds: row[9])
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
