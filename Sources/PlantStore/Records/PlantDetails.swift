import Foundation
import PlantGuideCore

/// One of a plant's photos, as `collection photo list` shows them.
public struct PlantPhoto: Sendable, Hashable, Codable {
    public var photo: StoredPhoto
    /// When it was added to this plant.
    public var addedAt: Date
    /// Whether it stands for the plant (chosen, or else the one added last).
    public var isCover: Bool

    /// One of a plant's photos as a store reads it.
    package init(photo: StoredPhoto, addedAt: Date, isCover: Bool) {
        self.photo = photo
        self.addedAt = addedAt
        self.isCover = isCover
    }
}

/// Everything known about one plant.
public struct PlantDetails: Sendable, Hashable, Codable {
    public var plant: Plant
    public var profile: CareProfile?
    public var scheduleSettings: [CareScheduleSettings]
    public var photos: [StoredPhoto]
    /// Newest first.
    public var events: [CareEvent]
    /// Newest first.
    public var identifications: [FiledIdentification]
    /// The diagnoses kept in its history, newest first.
    public var healthRecords: [HealthRecord]

    /// A plant's details as a store reads them.
    package init(
        plant: Plant, profile: CareProfile?, scheduleSettings: [CareScheduleSettings], photos: [StoredPhoto], events: [CareEvent],
        identifications: [FiledIdentification], healthRecords: [HealthRecord] = []
    ) {
        self.healthRecords = healthRecords
        self.plant = plant
        self.profile = profile
        self.scheduleSettings = scheduleSettings
        self.photos = photos
        self.events = events
        self.identifications = identifications
    }

    /// Where the plant lives, as said for its watering (empty when nothing is).
    public var conditions: PlantConditions {
        scheduleSettings.first { $0.task == .water }?.conditions ?? PlantConditions()
    }
}

extension Optional where Wrapped == String {
    /// The trimmed text, or `nil` when missing or blank.
    package var nonEmpty: String? {
        guard let trimmed = self?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}

/// A plant with everything it starts with, for adding many in one transaction.
public struct PlantSeed: Sendable {
    public var plant: NewPlant
    public var profile: CareProfile
    public var photo: StoredPhoto?
    public var events: [(task: CareTask, day: CalendarDay, note: String?)]

    /// Describes a plant to add with its profile, photo and past care.
    public init(
        plant: NewPlant, profile: CareProfile, photo: StoredPhoto? = nil,
        events: [(task: CareTask, day: CalendarDay, note: String?)] = []
    ) {
        self.plant = plant
        self.profile = profile
        self.photo = photo
        self.events = events
    }
}
