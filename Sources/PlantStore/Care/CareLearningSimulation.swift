import Foundation
import PlantGuideCore

/// Simulated plants and people that measure how well ``IntervalLearner`` finds each plant's watering interval, against
/// the care guide's fixed one (`plantguide-bench --suite care`).
///
/// Each plant has a guide interval `G` (a genus's growing-season interval from the bundled guide) and a true mean drying
/// time `D`, drawn evenly from 4–20 days within the learner's bounds (½–2× the guide). Each cycle the soil dries after
/// `D` × (1 ± `variation`) days, drawn evenly. With the guide, the plant is watered every `G` days. Learning, the person
/// checks the soil when the watering is due: still wet, they say so and the task moves on as the planner moves it (the
/// learned interval, or a tenth of it, at least a day, when that has passed); dry, they say so and water. The error of a
/// cycle is the days between the day it first came due and the day the soil dried.
package struct CareLearningSimulation: Sendable {
    /// The figures of one run.
    package struct Result: Sendable {
        /// Plants simulated.
        package var plants: Int
        /// Mean over plants of the mean absolute error of the due day, fixed guide.
        package var guideError: Double
        /// The same, learning.
        package var learnedError: Double
        /// Share of plants whose interval in force is within a day of `D` after 3, 5 and 10 cycles.
        package var withinADay: [Int: Double]
        /// The share within a day after 3 cycles for the best any learner could do: the rounded mean of the first three
        /// exact drying times.
        package var oracleWithinADayAfter3: Double
        /// Share of plants for which learning was no worse than the guide over the 10 cycles.
        package var noWorseThanGuide: Double
        /// Soil checks per cycle, learning.
        package var checksPerCycle: Double
    }

    /// How many plants.
    package var plants = 1000
    /// Cycles per plant.
    package var cycles = 10
    /// How much one cycle's drying time varies around `D` (0.2: ±20 %).
    package var variation = 0.2
    /// Seed of the random draws, so runs repeat.
    package var seed: UInt64 = 1

    /// A simulation with the defaults (1,000 plants, 10 cycles, ±20 %).
    package init(plants: Int = 1000, cycles: Int = 10, variation: Double = 0.2, seed: UInt64 = 1) {
        self.plants = plants
        self.cycles = cycles
        self.variation = variation
        self.seed = seed
    }

    /// Runs the simulation over guide intervals drawn from `guides`.
    package func run(guides: [Int]) -> Result {
        let candidates = guides.filter { Double($0) * 2 >= 4 && Double($0) / 2 <= 20 }
        precondition(!candidates.isEmpty, "no guide interval fits 4–20 days")
        var random = SplitMix64(seed: seed)
        let learner = IntervalLearner(everyDayIn: .growing)
        var guideErrors = 0.0, learnedErrors = 0.0, oracleHits = 0, noWorse = 0, checks = 0
        let milestones = [3, 5, 10].filter { $0 <= cycles }
        var hits = Dictionary(uniqueKeysWithValues: milestones.map { ($0, 0) })
        let start = CalendarDay(year: 2026, month: 4, day: 1) ?? CalendarDay(dayNumber: 20_544)
        for _ in 0..<plants {
            let guide = candidates[Int(random.next() % UInt64(candidates.count))]
            let low = max(4, Double(guide) * IntervalLearner.bounds.lowerBound)
            let high = min(20, Double(guide) * IntervalLearner.bounds.upperBound)
            let mean = low + (high - low) * random.unit()
            let dryingTimes = (0..<cycles).map { _ in mean * (1 + variation * (2 * random.unit() - 1)) }
            // The guide: watered every `guide` days, whatever the soil.
            let guideError = dryingTimes.map { abs(Double(guide) - $0) }.reduce(0, +) / Double(cycles)
            // Learning.
            var log = [CareObservation(day: start, soil: nil)]
            var cycleStart = start
            var errors = 0.0
            for (index, drying) in dryingTimes.enumerated() {
                let interval = IntervalLearner.interval(guide: guide, factor: learner.learn(guide: (guide, guide), log: log).growing)
                var check = interval
                errors += abs(Double(check) - drying)
                while Double(check) < drying {
                    log.append(CareObservation(day: cycleStart.adding(days: check), soil: .wet))
                    checks += 1
                    let moved = IntervalLearner.interval(
                        guide: guide, factor: learner.learn(guide: (guide, guide), log: log).growing
                    )
                    check = moved > check ? moved : check + max(1, Int((Double(moved) / 10).rounded()))
                }
                checks += 1
                let wateredOn = cycleStart.adding(days: check)
                log += [CareObservation(day: wateredOn, soil: .dry), CareObservation(day: wateredOn, soil: nil)]
                cycleStart = wateredOn
                let cycle = index + 1
                if milestones.contains(cycle) {
                    let now = IntervalLearner.interval(guide: guide, factor: learner.learn(guide: (guide, guide), log: log).growing)
                    if abs(Double(now) - mean) <= 1 { hits[cycle, default: 0] += 1 }
                }
            }
            let learnedError = errors / Double(cycles)
            guideErrors += guideError
            learnedErrors += learnedError
            if learnedError <= guideError + 1e-9 { noWorse += 1 }
            if cycles >= 3 {
                let oracle = (dryingTimes[0] + dryingTimes[1] + dryingTimes[2]) / 3
                if abs(oracle.rounded() - mean) <= 1 { oracleHits += 1 }
            }
        }
        let count = Double(plants)
        return Result(
            plants: plants, guideError: guideErrors / count, learnedError: learnedErrors / count,
            withinADay: hits.mapValues { Double($0) / count }, oracleWithinADayAfter3: Double(oracleHits) / count,
            noWorseThanGuide: Double(noWorse) / count, checksPerCycle: Double(checks) / (count * Double(cycles))
        )
    }
}
