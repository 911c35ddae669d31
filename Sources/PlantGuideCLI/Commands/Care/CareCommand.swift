import ArgumentParser
import PlantGuideCore
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
    /// `  water      Monty (#3)  overdue 2 days` and similar.
    func scheduleLine(_ task: ScheduledTask, today: CalendarDay, showPlant: Bool = false) -> String {
        let name = task.task.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
        var line = "  " + name
        if showPlant { line += style(task.plantName, .bold) + style(" (#\(task.plantId))", .dim) + "  " }
        guard let due = task.dueOn else { return line + style(task.paused ? "paused" : "not needed", .dim) }
        let days = due.days(since: today)
        switch days {
        case ..<0: line += style("overdue \(counted(-days, "day")) (due \(due))", .red)
        case 0: line += style("due today", .yellow)
        case 1: line += "due tomorrow (\(due))"
        default: line += "due \(due) (in \(counted(days, "day")))"
        }
        if let interval = task.intervalDays { line += style("  every \(interval) d", .dim) }
        if let last = task.lastDone { line += style("  last \(last)", .dim) }
        return line
    }
}
