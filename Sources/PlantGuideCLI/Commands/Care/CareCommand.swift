import ArgumentParser
import PlantGuideCore
import PlantLocalization
import PlantStore

struct CareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "care",
        abstract: "What your plants need and when: due lists, logging care, snoozing, calendars.",
        discussion: """
            Tasks are water, fertilize, repot, mist and prune. Due dates follow each plant's care \
            profile, its last logged care and the season (set PLANTGUIDE_HEMISPHERE=south below the \
            equator).

            Examples:
              plantguide care due                      Today and the next 7 days, by room.
              plantguide care done 3 water
              plantguide care check 3 --wet            The soil was still wet: wait, and learn.
              plantguide care due --explain            Why each date was chosen.
              plantguide care undo 3                   Remove the last entry logged for plant 3.
              plantguide care conditions 3 --pot 25 --material terracotta
              plantguide care snooze 3 fertilize --days 5
              plantguide care ics --output plants.ics
              plantguide care assign 3 --to alice      Alice's reminders list plant 3; --turns shares it.
            """,
        subcommands: [
            CareDueCommand.self, CareDoneCommand.self, CareCheckCommand.self, CareUndoCommand.self, CareSnoozeCommand.self,
            CareScheduleCommand.self, CareConditionsCommand.self, CareICSCommand.self, CareAssignCommand.self,
        ]
    )
}

extension CareTask: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension Console {
    /// The width of the task column: past the language's longest task name, so the plants line up (10 in English).
    static func taskColumnWidth(_ words: Localizer) -> Int {
        max(10, (CareTask.allCases.map { words.text("cli.care.task.\($0.rawValue)").count }.max() ?? 9) + 1)
    }

    /// `  water      Monty (#3)  overdue 2 days (due 2026-11-27)` and similar, in `words`' language.
    func scheduleLine(_ task: ScheduledTask, today: CalendarDay, showPlant: Bool = false, words: Localizer = .shared(.english)) -> String {
        let name = words.text("cli.care.task.\(task.task.rawValue)")
            .padding(toLength: Self.taskColumnWidth(words), withPad: " ", startingAt: 0)
        var line = "  " + name
        if showPlant { line += style(task.plantName, .bold) + style(" (#\(task.plantId))", .dim) + "  " }
        guard let due = task.dueOn else {
            return line + style(words.text(task.paused ? "cli.care.paused" : "cli.care.notNeeded"), .dim)
        }
        let days = due.days(since: today)
        let date = "\(due)"
        switch days {
        case ..<0: line += style(words.text("cli.care.overdue", count: -days, ["date": date]), .red)
        case 0: line += style(words.text("cli.care.dueToday"), .yellow)
        case 1: line += words.text("cli.care.dueTomorrow", ["date": date])
        default: line += words.text("cli.care.dueIn", count: days, ["date": date])
        }
        if let interval = task.intervalDays { line += style("  " + words.text("cli.care.every", ["count": String(interval)]), .dim) }
        if let last = task.lastDone { line += style("  " + words.text("cli.care.last", ["date": "\(last)"]), .dim) }
        return line
    }
}
