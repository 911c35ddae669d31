import Foundation
import PlantStore

/// Care that learns (issue #36 §6): 1,000 simulated plants whose soil dries every 4–20 days (±20 % per cycle), a
/// person who checks the soil when reminded; the learned interval against the guide's fixed one and against the best
/// any learner could do from three exact drying times. `PLANTGUIDE_BENCH_CARE_PLANTS` changes the number of plants.
struct CareBenchmark: BenchmarkSuite {
    let name = "care"
    let plants = ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_CARE_PLANTS"].flatMap(Int.init) ?? 1000

    func run() async throws -> [BenchmarkRow] {
        let guide = try CareGuide.bundled()
        let guides = (guide.genera.values.map(\.waterGrowingDays) + guide.categoryDefaults.values.map(\.waterGrowingDays)).sorted()
        var rows: [BenchmarkRow] = []
        for variation in [0.2, 0.1] {
            let percent = Int(variation * 100)
            let started = Date()
            let result = CareLearningSimulation(plants: plants, variation: variation).run(guides: guides)
            let seconds = Date().timeIntervalSince(started)
            let label = "\(result.plants) plants, ±\(percent) %"
            rows.append(BenchmarkRow(
                suite: name, name: "mean |due − dry|, learned vs fixed guide (\(label))", value: result.learnedError,
                unit: "days", below: result.guideError, peer: ("fixed guide", result.guideError)
            ))
            rows.append(BenchmarkRow(
                suite: name, name: "plants within ±1 day after 3 cycles (\(label))", value: 100 * (result.withinADay[3] ?? 0),
                unit: "%", atLeast: 90, peer: ("best possible from 3 exact drying times", 100 * result.oracleWithinADayAfter3)
            ))
            for cycles in [5, 10] {
                rows.append(BenchmarkRow(
                    suite: name, name: "plants within ±1 day after \(cycles) cycles (\(label))",
                    value: 100 * (result.withinADay[cycles] ?? 0), unit: "%"
                ))
            }
            rows.append(BenchmarkRow(
                suite: name, name: "plants no worse than the guide over 10 cycles (\(label))",
                value: 100 * result.noWorseThanGuide, unit: "%"
            ))
            rows.append(BenchmarkRow(suite: name, name: "soil checks per cycle (\(label))", value: result.checksPerCycle, unit: "checks"))
            rows.append(BenchmarkRow(suite: name, name: "simulation time (\(label))", value: seconds, unit: "s"))
        }
        return rows
    }
}
