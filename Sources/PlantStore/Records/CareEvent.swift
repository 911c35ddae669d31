import Foundation
import PlantGuideCore

/// One logged piece of care: "watered on 2026-03-02".
public struct CareEvent: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// Identity across collections.
    public var uuid: String
    public var plantId: Int64
    public var task: CareTask
    /// The day the care was given.
    public var day: CalendarDay
    public var note: String?
    /// When it was logged.
    public var createdAt: Date
    /// The name of the account that logged it (`nil` from the command line, or before there were accounts).
    public var recordedBy: String? = nil
    /// For a soil check (of watering only), what the soil was like; `nil` when the task was done. A check is not the
    /// task done: it moves the schedule and teaches the plant's interval (``IntervalLearner``).
    public var soil: SoilReading? = nil

    /// A care event as a store reads or writes it.
    package init(
        id: Int64, uuid: String, plantId: Int64, task: CareTask, day: CalendarDay, note: String?, createdAt: Date,
        recordedBy: String? = nil, soil: SoilReading? = nil
    ) {
        self.id = id
        self.uuid = uuid
        self.plantId = plantId
        self.task = task
        self.day = day
        self.note = note
        self.createdAt = createdAt
        self.recordedBy = recordedBy
        self.soil = soil
    }

    /// What the entry says, e.g. "watered" or "checked the soil: still wet".
    public var summary: String {
        switch soil {
        case nil: task.pastTense
        case .wet: "checked the soil: still wet"
        case .dry: "checked the soil: dry"
        }
    }
}
