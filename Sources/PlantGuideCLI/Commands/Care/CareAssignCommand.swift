import ArgumentParser
import PlantGuideCore
import PlantStore

struct CareAssignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Say who looks after a plant: one member, the members in turn, or everyone.",
        discussion: """
            A member's reminders then list the plant's tasks only when they are theirs: assigned to them, or their \
            turn (the member after whoever did the task last, by account; the first account when nobody has yet). \
            Reminders to the whole household (channels added without --member) list every task.

            Examples:
              plantguide care assign 3 --to alice
              plantguide care assign 3 --turns
              plantguide care assign 3 --everyone
              plantguide care assign --list
            """
    )

    @Argument(help: "The plant's id.", transform: PlantID.init(parsing:))
    var id: PlantID?

    @Option(help: "The member (account name) who looks after it.")
    var to: String?

    @Flag(help: "The household's members take turns.")
    var turns = false

    @Flag(help: "Nobody in particular: every member's reminders list it.")
    var everyone = false

    @Flag(help: "List the plants assigned to someone, and whose turn each task is.")
    var list = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        let ways = (to == nil ? 0 : 1) + (turns ? 1 : 0) + (everyone ? 1 : 0)
        if list {
            guard id == nil, ways == 0 else { throw ValidationError("--list takes no plant and no assignment.") }
            return
        }
        guard id != nil else { throw ValidationError("Name the plant by id (see `plantguide collection list`), or use --list.") }
        guard ways == 1 else { throw ValidationError("Say one of --to NAME, --turns or --everyone.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let environment = try CollectionEnvironment.load(context)
        let store = environment.store
        let household = NotifyCommand.household
        if list {
            let assignments = try await store.careAssignments(household: household)
            var rows: [AssignmentJSON] = []
            for (plantId, assignee) in assignments.plants.sorted(by: { $0.key < $1.key }) {
                let name = try await store.plant(id: plantId)?.displayName ?? "plant #\(plantId)"
                var turnsNow: [String: String] = [:]
                if assignee == .turns {
                    for task in CareTask.allCases { turnsNow[task.rawValue] = assignments.member(for: plantId, task: task)?.name }
                }
                rows.append(AssignmentJSON(
                    plant: plantId, name: name, member: assignments.member(for: plantId, task: .water).map(\.name),
                    turns: assignee == .turns, next: turnsNow.isEmpty ? nil : turnsNow
                ))
            }
            if output.json {
                try console.printJSON(rows)
            } else if rows.isEmpty {
                console.print("No plant is assigned: every member's reminders list every task.")
            } else {
                for row in rows {
                    let who = row.turns ? "in turn (water: \(row.next?["water"] ?? "anyone"))" : (row.member ?? "?")
                    console.print("#\(row.plant)  \(row.name): \(who)")
                }
            }
            return
        }
        guard let id else { return }
        let assignee: CareAssignee?
        var shown = "everyone"
        if let to {
            let user = try await NotifyCommand.member(named: to, store: store)
            assignee = .member(user.id)
            shown = user.name
        } else if turns {
            assignee = .turns
            shown = "the members in turn"
        } else {
            assignee = nil
        }
        try await store.setCareAssignment(plant: id.value, household: household, to: assignee)
        let plantName = try await store.plant(id: id.value)?.displayName ?? "plant #\(id.value)"
        if output.json {
            try console.printJSON(AssignmentJSON(
                plant: id.value, name: plantName, member: to == nil ? nil : shown, turns: turns, next: nil
            ))
        } else {
            console.print("\(plantName) is looked after by \(shown).")
        }
    }

    private struct AssignmentJSON: Encodable {
        var plant: Int64
        var name: String
        var member: String?
        var turns: Bool
        var next: [String: String]?
    }
}
