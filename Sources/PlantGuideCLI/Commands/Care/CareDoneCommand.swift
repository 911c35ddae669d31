import Foundation
import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareDoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Log care you gave, to one plant or several at once; each schedule moves on from that day.",
        discussion: """
            Name the plants by id, or take every plant of a room (--room) or every plant the task is due for \
            today or overdue (--due). Everything is checked before anything is logged. Watering, misting and \
            feeding done well before they were due teach the plant a shorter interval; see `care check` for \
            telling PlantGuide the soil was still wet.

            Examples:
              plantguide care done 3 water
              plantguide care done 3 5 8 water --date yesterday
              plantguide care done water --room Bathroom
              plantguide care done mist --due
              plantguide care done 3 repot --date 2026-03-01 --note "bigger pot, fresh soil"
              plantguide care done 3 water --by alice
            """
    )

    @Argument(help: ArgumentHelp("Plant ids, then the task (water, fertilize, repot, mist or prune).", valueName: "ids… task"))
    var words: [String] = []

    @Option(help: "Every plant in this room.")
    var room: String?

    @Flag(help: "Every plant the task is due for today or overdue.")
    var due = false

    @Option(help: "The day it was done: YYYY-MM-DD, 'today' or 'yesterday' (default today).")
    var date: String?

    @Option(help: "A note for the care log.")
    var note: String?

    @Option(help: "The member (account name) who did it, kept in the care log (and whose turn it was).")
    var by: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try parsed()
        _ = try parseDay(date, option: "--date", today: CalendarDay(Date(), in: .current))
    }

    /// The plant ids and the task named by the arguments.
    private func parsed() throws -> (ids: [PlantID], task: CareTask) {
        guard let last = words.last else { throw ValidationError("Name the task: water, fertilize, repot, mist or prune.") }
        guard let task = CareTask(rawValue: last.lowercased()) else {
            throw ValidationError("'\(last)' is not a task; the last argument is the task: water, fertilize, repot, mist or prune.")
        }
        let ids = try words.dropLast().map(PlantID.init(parsing:))
        let ways = (ids.isEmpty ? 0 : 1) + (room == nil ? 0 : 1) + (due ? 1 : 0)
        if ways == 0 { throw ValidationError("Name the plants by id, or use --room or --due.") }
        if ways > 1 { throw ValidationError("Name the plants one way: by id, --room or --due.") }
        if Set(ids).count != ids.count { throw ValidationError("A plant is named twice.") }
        return (ids, task)
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let planner = try await environment.planner
        let (ids, task) = try parsed()
        let day = try parseDay(date, option: "--date", today: planner.today) ?? planner.today
        if day > planner.today { throw ValidationError("Care can't be logged for a future day (\(day)); today is \(planner.today).") }
        var plants = ids.map(\.value)
        if let room {
            let inRoom = try await environment.store.plants(room: room)
            guard !inRoom.isEmpty else { throw ValidationError("No plant is in a room called '\(room)' (see `plantguide collection list`).") }
            plants = inRoom.map(\.id)
        } else if due {
            plants = try await planner.due(withinDays: 0).tasks.filter { $0.task == task }.map(\.plantId)
        }
        // Every plant is checked before anything is logged.
        for plantId in plants {
            guard try await environment.store.plant(id: plantId) != nil else { throw StoreError.plantNotFound(plantId) }
        }
        var scope = HouseholdScope.current ?? HouseholdScope(household: NotifyCommand.household)
        if let by {
            let member = try await NotifyCommand.member(named: by, store: environment.store)
            scope.user = member.id
            scope.userName = member.name
        }
        var logged: [DoneJSON] = []
        try await HouseholdScope.$current.withValue(scope) {
            for plantId in plants {
                let (event, next) = try await planner.markDone(plantId: plantId, task: task, on: day, note: note)
                logged.append(DoneJSON(event: event, next: next))
            }
        }
        if output.json {
            // One plant named by id: the object as before; otherwise a list.
            if ids.count == 1, let only = logged.first { try console.printJSON(only) } else { try console.printJSON(logged) }
            return
        }
        if logged.isEmpty {
            console.print("Nothing to log: no plant's \(task.rawValue) is due today.")
            return
        }
        for entry in logged {
            console.print("Logged: \(entry.next.plantName) \(task.pastTense) on \(entry.event.day).")
            console.print(console.scheduleLine(entry.next, today: planner.today))
        }
        if logged.count > 1 { console.print(counted(logged.count, "plant") + " \(task.pastTense).") }
    }

    private struct DoneJSON: Encodable {
        var event: CareEvent
        var next: ScheduledTask
    }
}
