import Foundation
import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Say what the soil was like when watering came due; the plant's interval learns from it.",
        discussion: """
            Still wet (--wet): the watering moves on a few days and the plant's interval grows. Dry (--dry): \
            the watering is due today and, checked before it was due, the interval shrinks. Intervals stay \
            within half and twice the care guide's; `care schedule ID` says why, and \
            `care schedule ID --task water --reset` goes back to the guide.

            Examples:
              plantguide care check 3 --wet
              plantguide care check 3 water --dry --date yesterday
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID

    @Argument(help: "The task checked for: water (the default; the soil tells when to water, nothing else).")
    var task: CareTask = .water

    @Flag(help: "The soil was still wet.")
    var wet = false

    @Flag(help: "The soil was dry.")
    var dry = false

    @Option(help: "The day of the check: YYYY-MM-DD, 'today' or 'yesterday' (default today).")
    var date: String?

    @Option(help: "A note for the care log.")
    var note: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if task != .water { throw ValidationError("A soil check belongs to watering, not to \(task.rawValue).") }
        if wet == dry { throw ValidationError("Say what the soil was like: --wet or --dry.") }
        _ = try parseDay(date, option: "--date", today: CalendarDay(Date(), in: .current))
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let planner = try await CollectionEnvironment.load(context).planner
        let day = try parseDay(date, option: "--date", today: planner.today)
        let (event, next) = try await planner.checkSoil(plantId: id.value, reading: wet ? .wet : .dry, on: day, note: note)
        let explanation = try await planner.explain(plantId: id.value).first { $0.task == .water }
        if output.json {
            try console.printJSON(CheckJSON(event: event, next: next, explanation: explanation))
            return
        }
        console.print("Logged: \(next.plantName) \(event.summary) on \(event.day).")
        console.print(console.scheduleLine(next, today: planner.today))
        if let explanation { console.print(console.style("  " + explanation.text, .dim)) }
    }

    private struct CheckJSON: Encodable {
        var event: CareEvent
        var next: ScheduledTask
        var explanation: IntervalExplanation?
    }
}
