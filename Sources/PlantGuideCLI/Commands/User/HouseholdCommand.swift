import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

/// `plantguide household`: the households one installation serves.
struct HouseholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: "List the households this installation serves, with their accounts and plants.",
        discussion: """
            Each household has its own collection; `plantguide user add NAME --household H` makes one with its first \
            account. Commands that use the collection act for one household: --household NAME, else \
            $PLANTGUIDE_HOUSEHOLD, else Home.

            Examples:
              plantguide household list
              plantguide household list --json
            """,
        subcommands: [HouseholdListCommand.self],
        defaultSubcommand: HouseholdListCommand.self
    )
}

/// `plantguide household list`.
struct HouseholdListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the households with how many accounts, owners and plants each has.",
        discussion: """
            --json prints an array of {id, name, accounts, owners, plants, createdAt}.
            """
    )

    @OptionGroup var output: OutputOptions

    /// One household as listed.
    struct Summary: Encodable {
        var id: Int64
        var name: String
        var accounts: Int
        var owners: Int
        var plants: Int
        var createdAt: Date
    }

    func run() async throws {
        let store = try CommandDatabase.open(in: DataDirectory.resolve())
        var summaries: [Summary] = []
        for household in try await store.households() {
            let accounts = try await store.users(household: household.id)
            let plants = try await store.plantCount(ofHousehold: household.id)
            summaries.append(Summary(
                id: household.id, name: household.name, accounts: accounts.count,
                owners: accounts.filter { $0.role == .owner }.count, plants: plants, createdAt: household.createdAt
            ))
        }
        let console = Console()
        if output.json {
            try console.printJSON(summaries)
            return
        }
        let width = max(summaries.map(\.name.count).max() ?? 0, 9)
        console.print(console.style(
            "Household".padding(toLength: width, withPad: " ", startingAt: 0) + "  Accounts  Owners   Plants  Since", .dim
        ))
        for summary in summaries {
            console.print(
                summary.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    + "  " + Self.right(summary.accounts, 8) + "  " + Self.right(summary.owners, 6) + "  " + Self.right(summary.plants, 7)
                    + "  " + summary.createdAt.formatted(.iso8601.year().month().day())
            )
        }
        console.print(console.style(counted(summaries.count, "household"), .dim))
    }

    private static func right(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

extension HouseholdListCommand: UsesCollectionDatabase {}
extension HouseholdListCommand: ServesEveryHousehold {
    static let installationWidePart = "the list of every household"
}
