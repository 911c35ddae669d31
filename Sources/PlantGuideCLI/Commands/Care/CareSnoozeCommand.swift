import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareSnoozeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Set a task's due day to some days from today (until it is done).",
        discussion: """
            The task is then due on that day in `care due`, the calendar and the web app, whether its \
            schedule had it sooner or later. Logging it done clears the snooze.

            Example:
              plantguide care snooze 3 fertilize --days 5
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The task: water, fertilize, repot, mist or prune.")
    var task: CareTask

    @Option(help: "How many days from today (1–365).")
    var days: Int

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...365).contains(days) else { throw ValidationError("--days must be between 1 and 365.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let planner = try await CollectionEnvironment.load(context).planner
        let next = try await planner.snooze(plantId: id.value, task: task, days: days)
        if output.json {
            try console.printJSON(next)
            return
        }
        console.print("Snoozed \(task.rawValue) for \(next.plantName) until \(next.snoozedUntil?.description ?? "?").")
        console.print(console.scheduleLine(next, today: planner.today))
    }
}
