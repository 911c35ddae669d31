import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore
import PlantStoreSQLite

/// `plantguide household`: the households one installation serves.
struct HouseholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: "List the households this installation serves; choose a household's hemisphere and time zone.",
        discussion: """
            Each household has its own collection; `plantguide user add NAME --household H` makes one with its first \
            account. Commands that use the collection act for one household: --household NAME, else \
            $PLANTGUIDE_HOUSEHOLD, else Home.

            Examples:
              plantguide household list
              plantguide household list --json
              plantguide household set --hemisphere south --time-zone Australia/Sydney
            """,
        subcommands: [HouseholdListCommand.self, HouseholdSetCommand.self],
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

    func run(in context: CommandContext) async throws {
        let store = try context.open()
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
extension HouseholdSetCommand: UsesCollectionDatabase {}
extension HouseholdListCommand: ServesEveryHousehold {
    static let installationWidePart = "the list of every household"
}

/// `plantguide household set`: the household's hemisphere and time zone, for its care schedules.
struct HouseholdSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Choose the hemisphere and time zone of a household's care schedules (without options: show them).",
        discussion: """
            The hemisphere decides which months are winter (October–March in the north, April–September in the \
            south), when plants are watered less and not fed; the time zone decides which day is today. Both \
            apply at once, to the command line and the web app (Settings shows and changes them too). Without \
            a choice a household follows $PLANTGUIDE_HEMISPHERE and the machine's time zone; `default` goes \
            back to them. The household is --household NAME, else $PLANTGUIDE_HOUSEHOLD, else Home.

            Examples:
              plantguide household set --hemisphere south --time-zone Australia/Sydney
              plantguide --household Cabin household set --time-zone Europe/Oslo
              plantguide household set --hemisphere default
              plantguide household set --json
            """
    )

    @Option(help: "north, south, or default.")
    var hemisphere: String?

    @Option(help: "An IANA time zone such as Europe/Paris, America/Chicago or UTC; or default.")
    var timeZone: String?

    @OptionGroup var output: OutputOptions

    /// The settings as printed.
    struct Shown: Encodable {
        var household: Int64
        var hemisphere: String
        var hemisphereIsSet: Bool
        var timeZone: String
        var timeZoneIsSet: Bool
    }

    func validate() throws {
        do {
            _ = try CareSettings.changes(hemisphere: hemisphere, timeZone: timeZone)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run(in context: CommandContext) async throws {
        let environment = try CollectionEnvironment.load(context)
        let household = HouseholdScope.current?.household ?? HouseholdScope.home.household
        for (key, value) in try CareSettings.changes(hemisphere: hemisphere, timeZone: timeZone) {
            try await environment.store.setHouseholdSetting(key, to: value, household: household, now: environment.now())
        }
        let settings = CareSettings(
            settings: try await environment.store.householdSettings(household: household), defaults: environment.careDefaults
        )
        let shown = Shown(
            household: household, hemisphere: settings.hemisphere.rawValue, hemisphereIsSet: settings.hemisphereIsSet,
            timeZone: settings.timeZone.identifier, timeZoneIsSet: settings.timeZoneIsSet
        )
        let console = Console()
        if output.json {
            try console.printJSON(shown)
            return
        }
        let whose: (Bool) -> String = { $0 ? "" : console.style("  (default)", .dim) }
        console.print("Hemisphere  \(shown.hemisphere)\(whose(shown.hemisphereIsSet))")
        console.print("Time zone   \(shown.timeZone)\(whose(shown.timeZoneIsSet))")
        if hemisphere != nil || timeZone != nil { console.print("Care schedules follow them from now on.") }
    }
}
