import ArgumentParser
import PlantGuideCore
import PlantLocalization
import PlantStore

struct CareDueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due",
        abstract: "List care that is due (or overdue) now and in the coming days, grouped by room.",
        discussion: """
            Examples:
              plantguide care due                 This week.
              plantguide care due --days 0        Today only.
              plantguide care due --json
              LANG=fr_FR.UTF-8 plantguide care due   In French (also de, es); --json is the same in every language.
            """
    )

    @Option(help: "How many days ahead to look (0 = today only).")
    var days = 7

    @Option(help: "Only this room.")
    var room: String?

    @Flag(help: "Say why each interval is what it is (the guide, what was learned, or set by hand).")
    var explain = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (0...366).contains(days) else { throw ValidationError("--days must be between 0 and 366.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let planner = try await CollectionEnvironment.load(context).planner
        var list = try await planner.due(withinDays: days, room: room)
        if explain {
            for index in list.rooms.indices { list.rooms[index].tasks = try await planner.explained(list.rooms[index].tasks) }
        }
        if output.json {
            try console.printJSON(list)
            return
        }
        let words = context.localizer
        guard !list.rooms.isEmpty else {
            console.print(days == 0 ? words.text("care.nothingToday") : words.text("cli.care.nothingThrough", ["date": "\(list.through)"]))
            return
        }
        // Explanations start under the plant's name.
        let indent = String(repeating: " ", count: 3 + Console.taskColumnWidth(words))
        for room in list.rooms {
            console.print(console.style(room.room ?? words.text("care.noRoom"), .cyan))
            for task in room.tasks {
                console.print(console.scheduleLine(task, today: list.today, showPlant: true, words: words))
                // Why a date is what it is: written by the planner in English still.
                if let explanation = task.explanation { console.print(console.style(indent + explanation.text, .dim)) }
            }
        }
        let overdue = list.tasks.filter(\.isOverdue).count
        console.print(
            overdue > 0
                ? words.text("cli.care.totalOverdue", count: list.tasks.count, ["overdue": String(overdue)])
                : words.text("cli.care.total", count: list.tasks.count)
        )
    }
}
