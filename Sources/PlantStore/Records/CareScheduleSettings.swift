import Foundation
import PlantGuideCore

/// One plant's own settings for one task: an interval that replaces the care guide's, a pause, or a
/// snooze.
public struct CareScheduleSettings: Sendable, Hashable, Codable {
    public var plantId: Int64
    public var task: CareTask
    /// Days between occurrences in the growing season, replacing the profile's.
    public var growingDays: Int?
    /// Days between occurrences in the rest season, replacing the profile's.
    public var restDays: Int?
    /// Whether the task is switched off for this plant.
    public var paused: Bool
    /// Not due before this day (cleared when the task is done).
    public var snoozedUntil: CalendarDay?
    /// The growing season's interval learned from the care log, over the guide's (see ``IntervalLearner``); `nil`
    /// while nothing is learned. Kept from the log by ``CarePlanner``; an interval set by hand wins over it.
    public var learnedGrowing: Double?
    /// The rest season's learned interval over the guide's.
    public var learnedRest: Double?
    /// The day the plant went back to the guide for this task: the log before it is not learned from.
    public var learnedSince: CalendarDay?
    /// Where the plant lives (pot, light, heater, outdoors), kept with its watering (``PlantConditions``): the guide's
    /// watering intervals are scaled by them before what was learned applies.
    public var conditions: PlantConditions?

    /// Settings for one plant and task.
    public init(
        plantId: Int64, task: CareTask, growingDays: Int? = nil, restDays: Int? = nil, paused: Bool = false,
        snoozedUntil: CalendarDay? = nil, learnedGrowing: Double? = nil, learnedRest: Double? = nil,
        learnedSince: CalendarDay? = nil, conditions: PlantConditions? = nil
    ) {
        self.conditions = conditions
        self.plantId = plantId
        self.task = task
        self.growingDays = growingDays
        self.restDays = restDays
        self.paused = paused
        self.snoozedUntil = snoozedUntil
        self.learnedGrowing = learnedGrowing
        self.learnedRest = learnedRest
        self.learnedSince = learnedSince
    }
}

extension CareScheduleSettings {
    /// The conditions as the `conditions` column keeps them: JSON with sorted keys, `NULL` when nothing is said.
    package static func encoded(_ conditions: PlantConditions?) -> String? {
        guard let conditions, !conditions.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(conditions)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The conditions of a `conditions` column.
    /// - Throws: ``StoreError/invalid(_:)`` for text that is not conditions (a damaged row).
    package static func conditions(decoding text: String?, plantId: Int64) throws(StoreError) -> PlantConditions? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(PlantConditions.self, from: Data(text.utf8))
        } catch {
            throw .invalid("the conditions kept for plant \(plantId) are unreadable")
        }
    }
}

