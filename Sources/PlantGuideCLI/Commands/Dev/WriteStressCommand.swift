import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

/// Writes plants with care events, one transaction each, and prints `committed <uuid>` after each
/// commit returns, so a test can kill the process at any point and check that every reported write
/// is complete in the database.
struct WriteStressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write-stress",
        abstract: "Write many plants with events, printing each committed one.",
        discussion: """
            Example:
              plantguide dev write-stress --count 1000
            """
    )

    /// Care events written with each plant.
    static let eventsPerPlant = 3

    @Option(help: "How many plants to write.")
    var count = 1000

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be at least 1.") }
    }

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        let profile = environment.collection.careGuide.profile(genus: nil, category: .fern)
        let today = try await environment.planner.today
        for index in 0..<count {
            let seed = PlantSeed(
                plant: NewPlant(name: "Stress plant \(index)", room: "Room \(index % 7)", notes: String(repeating: "n", count: index % 300)),
                profile: profile,
                events: (0..<Self.eventsPerPlant).map { (CareTask.allCases[$0 % CareTask.allCases.count], today.adding(days: -$0), "event \($0)") }
            )
            let plant = try await environment.store.addPlants([seed], now: Date())
            guard let uuid = plant.first?.uuid else { continue }
            // Unbuffered write: the line reaches the pipe only after the commit has returned.
            FileHandle.standardOutput.write(Data("committed \(uuid)\n".utf8))
        }
    }
}
