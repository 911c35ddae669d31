import Foundation
import PlantGuideCore

/// Builds the care scheduler's ``PlantCareState``s from the rows every store reads in one snapshot: the last day each
/// task was done, the plants' own schedule settings, then the plants with their profile's intervals, all in plant id
/// order.
///
/// The per-task rows are read first into small arrays and merged in while each plant's state is built, so every
/// (large) state is written once, in order: updating states afterwards missed the cache on every plant. As all rows come
/// in plant id order, the merge needs no lookups.
package struct CareStateAssembler {
    /// One row of `careLastDone`: a task (its position in ``CareTask/allCases``) and the day (days since 1970-01-01).
    package typealias LastDone = (plantId: Int64, task: Int, day: Int)

    /// A care profile's intervals as the `careProfile` columns hold them.
    package struct ProfileIntervals: Sendable {
        package var waterGrowingDays: Int?
        package var waterWinterDays: Int?
        package var fertilizeGrowingDays: Int?
        package var mistDays: Int?
        package var repotDays: Int?
        package var pruneDays: Int?

        /// The intervals of one `careProfile` row.
        package init(
            waterGrowingDays: Int?, waterWinterDays: Int?, fertilizeGrowingDays: Int?, mistDays: Int?, repotDays: Int?,
            pruneDays: Int?
        ) {
            self.waterGrowingDays = waterGrowingDays
            self.waterWinterDays = waterWinterDays
            self.fertilizeGrowingDays = fertilizeGrowingDays
            self.mistDays = mistDays
            self.repotDays = repotDays
            self.pruneDays = pruneDays
        }
    }

    private let lastDone: [LastDone]
    private let settings: [CareScheduleSettings]
    private var doneCursor = 0
    private var settingsCursor = 0
    /// The states built so far, in the order the plants were added.
    package private(set) var states: [PlantCareState] = []

    private static let fallback: PerTask<TaskIntervals> = {
        var fallback = PerTask(repeating: TaskIntervals(growing: nil, rest: nil))
        for task in CareTask.allCases {
            fallback[task] = TaskIntervals(
                growing: CareGuide.fallbackProfile.growingInterval(for: task), rest: CareGuide.fallbackProfile.restInterval(for: task)
            )
        }
        return fallback
    }()

    /// Starts with the per-task rows, each sorted by plant id, and room for `plantCount` states.
    package init(lastDone: [LastDone], settings: [CareScheduleSettings], plantCount: Int) {
        self.lastDone = lastDone
        self.settings = settings
        // States are large; growing the array step by step copied them over and over.
        states.reserveCapacity(plantCount)
    }

    /// Adds the state of the next plant (ids ascending); `profile` is `nil` for a plant without a care profile, which
    /// gets the care guide's fallback intervals. The last days come from the `lastDone` rows given at the start, or from
    /// `lastDone` here when a store read them with the plant.
    package mutating func addPlant(
        id: Int64, uuid: String, displayName: String, room: String?, createdAt: Date, profile: ProfileIntervals?,
        lastDone plantLastDone: PerTask<CalendarDay?>? = nil
    ) {
        var intervals = Self.fallback
        if let profile {
            intervals = PerTask(
                TaskIntervals(growing: profile.waterGrowingDays, rest: profile.waterWinterDays),
                TaskIntervals(growing: profile.fertilizeGrowingDays, rest: nil),
                TaskIntervals(growing: profile.repotDays, rest: profile.repotDays),
                TaskIntervals(growing: profile.mistDays, rest: profile.mistDays.map { $0 * 2 }),
                TaskIntervals(growing: profile.pruneDays, rest: nil)
            )
        }
        var days = plantLastDone ?? PerTask<CalendarDay?>(repeating: nil)
        while doneCursor < lastDone.count && lastDone[doneCursor].plantId < id { doneCursor += 1 }
        while doneCursor < lastDone.count && lastDone[doneCursor].plantId == id {
            days[lastDone[doneCursor].task] = CalendarDay(dayNumber: lastDone[doneCursor].day)
            doneCursor += 1
        }
        var own = PerTask<CareScheduleSettings?>(repeating: nil)
        while settingsCursor < settings.count && settings[settingsCursor].plantId < id { settingsCursor += 1 }
        while settingsCursor < settings.count && settings[settingsCursor].plantId == id {
            own[settings[settingsCursor].task.index] = settings[settingsCursor]
            settingsCursor += 1
        }
        states.append(PlantCareState(
            plantId: id, plantUUID: uuid, displayName: displayName, room: room, createdAt: createdAt,
            intervals: intervals, settings: own, lastDone: days
        ))
    }
}
