import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

/// The root of the `plantguide` command line. Subcommands live in `Commands/`, one folder per concern.
public struct PlantGuideCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plantguide",
        abstract: "Identify plants from photos, look them up, and keep them alive.",
        discussion: """
            Everything PlantGuide writes lives in its data directory: $PLANTGUIDE_HOME, else \
            $XDG_DATA_HOME/plantguide, else ~/.local/share/plantguide.

            Examples:
              plantguide search "monstera"            Find plants in the bundled catalog.
              plantguide browse --category cactus     List one category, grouped by letter.
              plantguide species show "white clover"  One species: family, names, care.
              plantguide catalog stats --json         Counts, machine-readable.
              plantguide model install                Download the on-device model (PlantNet-300K ResNet50).
              plantguide identify leaf.jpg            What plant is this? On the device and/or with Pl@ntNet.
              plantguide recheck                      Send answers the device gave offline to Pl@ntNet now.
              plantguide serve                        Start the web app at http://127.0.0.1:8080/.
              plantguide user add alice               Add an account for the web app (password on stdin).
              plantguide care due --household Smiths  Any collection command, for another household.

            Commands that use the collection act for the household "Home" unless --household NAME (or \
            $PLANTGUIDE_HOUSEHOLD) names another; `plantguide user add NAME --household H` makes one.
            """,
        version: PlantGuideVersion.current,
        subcommands: [
            SearchCommand.self,
            BrowseCommand.self,
            SpeciesCommand.self,
            CatalogCommand.self,
            ServeCommand.self,
            CollectionCommand.self,
            CareCommand.self,
            ExportCommand.self,
            ImportCommand.self,
            BackupCommand.self,
            MigrateCommand.self,
            DevCommand.self,
            ImageCommand.self,
            IdentifyCommand.self,
            ModelCommand.self,
            QuotaCommand.self,
            StatsCommand.self,
            CacheCommand.self,
            ConfigCommand.self,
            RecheckCommand.self,
            UserCommand.self,
        ]
    )

    public init() {}
}

/// The version printed by `plantguide --version` and reported by the web app.
public enum PlantGuideVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}

extension PlantGuideCommand {
    /// Runs the command line with the process's arguments and exits (the executable's entry point). A command that keeps
    /// its records in the data directory's SQLite database refuses to run while `PLANTGUIDE_DATABASE_URL` names another
    /// database, rather than writing where the web app does not read.
    ///
    /// `--household NAME` (or `PLANTGUIDE_HOUSEHOLD`) before or after the command's own arguments makes a command that
    /// uses the collection act for that household instead of household 1.
    public static func runAsMain() async {
        do {
            let (arguments, householdOption) = HouseholdOption.extract(from: Array(CommandLine.arguments.dropFirst()))
            var command = try await asyncParseAsRoot(arguments)
            let environment = ProcessInfo.processInfo.environment
            let directory = DataDirectory.resolve(environment: environment)
            var scope: HouseholdScope?
            if command is any UsesDataDirectoryDatabase {
                try DatabaseOptions.requireDataDirectoryDatabase(
                    type(of: command).configuration.commandName ?? "", directory: directory, environment: environment
                )
                if let name = HouseholdOption.chosenName(householdOption, environment: environment) {
                    scope = try await HouseholdOption.scope(named: name, directory: directory)
                }
            } else if householdOption != nil {
                throw HouseholdChoiceError(
                    description: "--household chooses whose collection a command works on; `plantguide "
                        + "\(type(of: command).configuration.commandName ?? "")` does not use the collection."
                )
            }
            try await HouseholdScope.$current.withValue(scope) {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            }
        } catch {
            exit(withError: error)
        }
    }
}
