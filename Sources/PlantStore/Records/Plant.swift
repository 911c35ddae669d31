import Foundation
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
