import Foundation
import PlantGuideCore

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
    /// Id of its newest photo, if any.
    public var photoID: String?
    /// When it was added.
    public var added: Date

    /// Creates an entry.
    public init(
        id: String, scientificName: String, nickname: String? = nil, commonName: String? = nil, room: String? = nil,
        photoID: String? = nil, added: Date
    ) {
        self.id = id
        self.scientificName = scientificName
        self.nickname = nickname
        self.commonName = commonName
        self.room = room
        self.photoID = photoID
        self.added = added
    }
}

/// One line of a plant's history or care log.
public struct CollectionEvent: Sendable, Codable, Hashable {
    /// When it happened.
    public var date: Date
    /// What happened, e.g. "Watered" or "Identified as Monstera deliciosa (92 %)".
    public var text: String

    /// Creates an event.
    public init(date: Date, text: String) {
        self.date = date
        self.text = text
    }
}

/// A plant's page: the entry, its photos, identification history and care log.
public struct CollectionEntryDetail: Sendable, Codable, Hashable {
    public var entry: CollectionEntry
    /// Photo ids, newest first.
    public var photoIDs: [String]
    /// Identifications and edits.
    public var history: [CollectionEvent]
    /// Care done.
    public var careLog: [CollectionEvent]

    /// Creates a detail.
    public init(entry: CollectionEntry, photoIDs: [String], history: [CollectionEvent], careLog: [CollectionEvent]) {
        self.entry = entry
        self.photoIDs = photoIDs
        self.history = history
        self.careLog = careLog
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

    /// Creates the capability.
    public init(
        list: @escaping @Sendable (_ room: String?) async throws -> [CollectionEntry],
        detail: @escaping @Sendable (_ id: String) async throws -> CollectionEntryDetail?,
        add: @escaping @Sendable (NewCollectionEntry) async throws -> CollectionEntry,
        photo: @escaping @Sendable (_ id: String) async throws -> Data?
    ) {
        self.list = list
        self.detail = detail
        self.add = add
        self.photo = photo
    }
}
