import ArgumentParser
import Foundation
import PlantStore

struct CareICSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ics",
        abstract: "Export upcoming care as an iCalendar (.ics) file for your calendar app.",
        discussion: """
            Every plant-and-task pair keeps one event UID, so re-importing or subscribing to a fresh \
            export moves events instead of duplicating them.

            Examples:
              plantguide care ics --output plants.ics
              plantguide care ics --days 90 > plants.ics
              plantguide care ics --alarm 07:30 --output plants.ics
            """
    )

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    @Option(help: "How many days ahead to include.")
    var days = 30

    @Option(help: "The local time of day each event's alarm goes off (HH:MM, default 08:00).")
    var alarm: TimeOfDay?

    @Flag(help: "Print JSON: {file, events} with --output, else {events, calendar} with the calendar text.")
    var json = false

    func validate() throws {
        guard (0...730).contains(days) else { throw ValidationError("--days must be between 0 and 730.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let planner = try await environment.planner
        let today = planner.today
        let tasks = try await planner.upcoming(through: today.adding(days: days))
        let text = ICalendarWriter(now: environment.now(), alarmMinute: alarm?.minuteOfDay ?? ReminderRules.standardMinuteOfDay).calendar(for: tasks, today: today)
        guard let output else {
            if json {
                try console.printJSON(CalendarJSON(file: nil, events: tasks.count, calendar: text))
            } else {
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
        }
        if json {
            try console.printJSON(CalendarJSON(file: output, events: tasks.count, calendar: nil))
        } else {
            console.print("Wrote \(tasks.count) event\(tasks.count == 1 ? "" : "s") to \(output).")
        }
    }

    private struct CalendarJSON: Encodable {
        var file: String?
        var events: Int
        var calendar: String?
    }
}
