import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareDoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Log care you gave; the task's schedule moves on from that day.",
        discussion: """
            Examples:
              plantguide care done 3 water
              plantguide care done 3 repot --date 2026-03-01 --note "bigger pot, fresh soil"
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The task: water, fertilize, repot, mist or prune.")
    var task: CareTask

    @Option(help: "The day it was done (YYYY-MM-DD; default today).")
    var date: String?

    @Option(help: "A note for the care log.")
    var note: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try parseDay(date, option: "--date")
    }

    func run() async throws {
        let console = Console()
        let planner = try CollectionEnvironment.load().planner
        let (event, next) = try await planner.markDone(
            plantId: id.value, task: task, on: try parseDay(date, option: "--date"), note: note
        )
        if output.json {
            try console.printJSON(DoneJSON(event: event, next: next))
            return
        }
        console.print("Logged: \(next.plantName) \(task.pastTense) on \(event.day).")
        console.print(console.scheduleLine(next, today: planner.today))
    }

    private struct DoneJSON: Encodable {
        var event: CareEvent
        var next: ScheduledTask
    }
}
