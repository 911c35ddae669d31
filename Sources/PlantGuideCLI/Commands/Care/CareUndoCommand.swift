import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareUndoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Remove a plant's last care entry (care done or a soil check), e.g. one logged by mistake.",
        discussion: """
            The entry logged last goes, whatever its day; the schedule and what the plant learned are worked \
            out again without it.

            Example:
              plantguide care undo 3
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @OptionGroup var output: OutputOptions

    func run(in context: CommandContext) async throws {
        let console = Console()
        let planner = try await CollectionEnvironment.load(context).planner
        guard let (removed, schedule) = try await planner.undoLastEntry(plantId: id.value) else {
            throw ValidationError("Plant #\(id.value) has no care logged; there is nothing to undo.")
        }
        if output.json {
            try console.printJSON(UndoJSON(removed: removed, schedule: schedule))
            return
        }
        let name = schedule.first?.plantName ?? "#\(id.value)"
        console.print("Removed: \(name) \(removed.summary) on \(removed.day).")
        for entry in schedule where entry.task == removed.task { console.print(console.scheduleLine(entry, today: planner.today)) }
    }

    private struct UndoJSON: Encodable {
        var removed: CareEvent
        var schedule: [ScheduledTask]
    }
}
