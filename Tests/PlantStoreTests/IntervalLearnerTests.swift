import Foundation
import PlantGuideCore
import Testing
@testable import PlantStore

@Suite struct IntervalLearnerTests {
    private let learner = IntervalLearner(hemisphere: .north)

    /// Cycles of a plant whose soil dries after `dry[i]` days: the task comes due every `due` days from the last
    /// watering (as the learner would have it), a check finds it wet on the due day and every `step` days after until it
    /// is dry, and the plant is watered then.
    private func cycles(from start: String, dry: [Int], step: Int = 1, guide: Int) -> [CareObservation] {
        var day = CalendarDay(start)!
        var log = [CareObservation(day: day, soil: nil)]
        for length in dry {
            let due = IntervalLearner.interval(
                guide: guide, factor: learner.learn(guide: (guide, guide), log: log).growing
            )
            var check = due
            while check < length {
                log.append(CareObservation(day: day.adding(days: check), soil: .wet))
                check += step
            }
            log.append(CareObservation(day: day.adding(days: check), soil: .dry))
            day = day.adding(days: check)
            log.append(CareObservation(day: day, soil: nil))
        }
        return log
    }

    @Test func nothingIsLearnedWithoutEvidence() {
        #expect(learner.learn(guide: (7, 14), log: []) == .none)
        // Watering on the due day without a check says nothing about when the soil dried.
        let onTime = (0..<5).map { CareObservation(day: CalendarDay("2026-05-01")!.adding(days: 7 * $0), soil: nil) }
        #expect(learner.learn(guide: (7, 14), log: onTime) == .none)
    }

    @Test func soilThatStaysWetLengthensTheIntervalAndSaysWhy() {
        let log = cycles(from: "2026-05-01", dry: [10, 10, 10], guide: 7)
        let learned = learner.learn(guide: (7, 14), log: log)
        let factor = learned.growing ?? 0
        // The soil dried somewhere in the tenth day: due on the ninth or the tenth.
        #expect((9...10).contains(IntervalLearner.interval(guide: 7, factor: factor)))
        #expect(learned.rest == nil)
        #expect(learned.reasons.allSatisfy { $0.kind == .stillWet && $0.season == .growing })
        #expect(learned.reasons.first?.text.hasPrefix("the soil was still wet when due") == true)
        #expect(learned.reasons.first?.text.contains("May 2026 (+") == true)
        let total = learned.reasons.map(\.days).reduce(0, +)
        #expect(abs(total - (7 * factor - 7)) < 1e-9)
    }

    @Test func soilFoundDryOrWateringEarlyShortensIt() {
        var log = [CareObservation(day: CalendarDay("2026-05-01")!, soil: nil)]
        var day = CalendarDay("2026-05-01")!
        for _ in 0..<4 {
            // Dry when checked on day 5 of a 10-day interval, watered the same day.
            day = day.adding(days: 5)
            log += [CareObservation(day: day, soil: .dry), CareObservation(day: day, soil: nil)]
        }
        let learned = learner.learn(guide: (10, 20), log: log)
        #expect(IntervalLearner.interval(guide: 10, factor: learned.growing) < 10)
        #expect(learned.reasons.first?.kind == .alreadyDry)
        // Watering well before the due day without a check counts too.
        let early = (0..<4).map { CareObservation(day: CalendarDay("2026-05-01")!.adding(days: 6 * $0), soil: nil) }
        let fromEarly = learner.learn(guide: (10, 20), log: early)
        #expect(IntervalLearner.interval(guide: 10, factor: fromEarly.growing) < 10)
        #expect(fromEarly.reasons.first?.kind == .doneEarly)
    }

    @Test func theIntervalStaysWithinHalfAndTwiceTheGuide() {
        let long = learner.learn(guide: (5, 5), log: cycles(from: "2026-05-01", dry: [30, 30, 30, 30], step: 3, guide: 5))
        #expect(IntervalLearner.interval(guide: 5, factor: long.growing) == 10)
        #expect(IntervalLearner.interval(guide: 20, factor: 0.1) == 10)
        #expect(IntervalLearner.interval(guide: 20, factor: .nan) == 20)
        #expect(IntervalLearner.clamped(.infinity) == nil)
    }

    @Test func eachSeasonLearnsFromItsOwnCyclesAndGoingBackToTheGuideForgets() {
        // October is winter in the north: these cycles teach the rest season only.
        let winter = cycles(from: "2026-10-01", dry: [20, 20], guide: 14)
        let learned = learner.learn(guide: (7, 14), log: winter)
        #expect(learned.growing == nil)
        #expect(IntervalLearner.interval(guide: 14, factor: learned.rest) > 14)
        #expect(learned.reasons.allSatisfy { $0.season == .rest })
        // Everything before `since` is ignored.
        #expect(learner.learn(guide: (7, 14), log: winter, since: CalendarDay("2026-12-31")) == .none)
    }

    @Test func anOpenCycleCountsItsWetChecksAtOnce() {
        let start = CalendarDay("2026-05-01")!
        let log = [CareObservation(day: start, soil: nil), CareObservation(day: start.adding(days: 7), soil: .wet)]
        let learned = learner.learn(guide: (7, 14), log: log)
        #expect(IntervalLearner.interval(guide: 7, factor: learned.growing) > 7)
        #expect(learned.reasons.map(\.kind) == [.stillWet])
    }

    @Test func aPlantThatDriesSlowerThanTheGuideSaysIsFoundWithinADay() {
        // Dry after 9, 11, 10, 9, 11 days (mean 10); the guide says 7.
        let learned = learner.learn(guide: (7, 14), log: cycles(from: "2026-04-01", dry: [9, 11, 10, 9, 11], guide: 7))
        #expect(abs(IntervalLearner.interval(guide: 7, factor: learned.growing) - 10) <= 1)
    }
}

@Suite struct CareLearningSimulationTests {
    @Test func learningBeatsTheFixedGuideAndImprovesWithEveryCycle() {
        let result = CareLearningSimulation(plants: 60, cycles: 10, variation: 0.2, seed: 3).run(guides: [4, 7, 10, 14, 21])
        #expect(result.plants == 60)
        #expect(result.learnedError < result.guideError)
        let after3 = result.withinADay[3] ?? 0, after10 = result.withinADay[10] ?? 0
        #expect(after10 >= after3)
        #expect(after10 > 0.8)
        // A check on the due day at least, and on average fewer than three a cycle.
        #expect(result.checksPerCycle >= 1 && result.checksPerCycle < 3)
        // The same seed, the same run.
        let again = CareLearningSimulation(plants: 60, cycles: 10, variation: 0.2, seed: 3).run(guides: [4, 7, 10, 14, 21])
        #expect(again.learnedError == result.learnedError)
    }
}
