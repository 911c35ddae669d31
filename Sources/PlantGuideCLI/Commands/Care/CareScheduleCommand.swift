import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Show a plant's schedule and why, and optionally change a task's interval or pause it.",
        discussion: """
            Examples:
              plantguide care schedule 3
              plantguide care schedule 3 --task water --every 5 --winter 12
              plantguide care schedule 3 --task mist --pause
              plantguide care schedule 3 --task water --reset

            Each line says where its interval comes from: the care guide, what the care log taught \
            (`care check`, care done early), or an interval set by hand. --reset goes back to the guide and \
            forgets what was learned.
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Option(help: "The task to change.")
    var task: CareTask?

    @Option(help: "Days between occurrences in the growing season (all year unless --winter is given).")
    var every: Int?

    @Option(help: "Days between occurrences in winter.")
    var winter: Int?

    @Flag(help: "Switch the task off for this plant.")
    var pause = false

    @Flag(help: "Switch a paused task back on.")
    var resume = false

    @Flag(help: "Go back to the care guide's intervals, forgetting what was set by hand or learned.")
    var reset = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        let changes = every != nil || winter != nil || pause || resume || reset
        if changes && task == nil { throw ValidationError("Name the task to change with --task.") }
        for value in [every, winter].compactMap({ $0 }) where !(1...3650).contains(value) {
            throw ValidationError("Intervals are 1 to 3650 days, not \(value).")
        }
        if pause && resume { throw ValidationError("--pause and --resume contradict each other.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let plantId = id.value
        let planner = try await environment.planner
        if let task, reset { try await planner.backToGuide(plantId: plantId, task: task) }
        if let task {
            let (every, winter, pause, resume, reset) = (every, winter, pause, resume, reset)
            try await environment.store.updateScheduleSettings(plantId: plantId, task: task) { settings in
                if reset {
                    settings.growingDays = nil
                    settings.restDays = nil
                    settings.paused = false
                }
                if let every { settings.growingDays = every }
                if let winter { settings.restDays = winter }
                if pause { settings.paused = true }
                if resume { settings.paused = false }
            }
        }
        let schedule = try await planner.explainedSchedule(forPlant: plantId)
        if output.json {
            try console.printJSON(schedule)
            return
        }
        if let first = schedule.first { console.print(console.style(first.plantName, .bold) + console.style(" (#\(first.plantId))", .dim)) }
        for entry in schedule {
            console.print(console.scheduleLine(entry, today: planner.today))
            if let explanation = entry.explanation { console.print(console.style("             " + explanation.text, .dim)) }
        }
    }
}
