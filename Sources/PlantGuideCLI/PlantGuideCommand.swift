import ArgumentParser
import Foundation
import PlantClassifier
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
              plantguide household list               The households, with their accounts and plants.
              plantguide care due --household Smiths  Any collection command, for another household.

            Commands that use the collection act for the household "Home" unless --household NAME (or \
            $PLANTGUIDE_HOUSEHOLD) names another; `plantguide user add NAME --household H` makes one. They keep \
            their records where `plantguide serve` does: in the database --database URL (anywhere on the line) or \
            $PLANTGUIDE_DATABASE_URL names (sqlite:PATH or postgres://USER@HOST/DATABASE), else in collection.sqlite \
            in the data directory.
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
            NotifyCommand.self,
            ExportCommand.self,
            ImportCommand.self,
            BackupCommand.self,
            MigrateCommand.self,
            DevCommand.self,
            ImageCommand.self,
            IdentifyCommand.self,
            DiagnoseCommand.self,
            ModelCommand.self,
            QuotaCommand.self,
            StatsCommand.self,
            CacheCommand.self,
            ConfigCommand.self,
            RecheckCommand.self,
            UserCommand.self,
            HouseholdCommand.self,
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
    /// Runs the command line with the process's arguments and exits (the executable's entry point).
    ///
    /// A command that uses the collection works on the database `--database URL` (before or after its own arguments)
    /// or `PLANTGUIDE_DATABASE_URL` names, as `serve` does, else on the data directory's SQLite file; and for the
    /// household `--household NAME` (or `PLANTGUIDE_HOUSEHOLD`) names, else household 1.
    public static func runAsMain() async {
        // Before OpenBLAS's idle workers spin through the first 0.1 s of every command.
        Classifier.keepBLASOnCallingThreads()
        do {
            let (arguments, householdOption, databaseOption) = try HouseholdOption.extractGlobalOptions(
                from: Array(CommandLine.arguments.dropFirst())
            )
            var command = try await asyncParseAsRoot(arguments)
            let environment = ProcessInfo.processInfo.environment
            let directory = DataDirectory.resolve(environment: environment)
            let name = commandPath(arguments) ?? type(of: command).configuration.commandName ?? ""
            func runCommand() async throws {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            }
            guard let databaseCommand = command as? any UsesCollectionDatabase else {
                if householdOption != nil {
                    throw HouseholdChoiceError(
                        description: "--household chooses whose collection a command works on; `plantguide \(name)` does "
                            + "not use the collection."
                    )
                }
                if databaseOption != nil {
                    throw DatabaseChoiceError(
                        description: name == "migrate"
                            ? "plantguide migrate copies from --from (default: the data directory's SQLite file) into --to URL."
                            : "--database chooses where the collection is kept; `plantguide \(name)` does not use the collection."
                    )
                }
                try await runCommand()
                return
            }
            if householdOption != nil, let wide = command as? any ServesEveryHousehold {
                throw HouseholdChoiceError(
                    description: "--household chooses whose collection a command works on; `plantguide \(name)` works on "
                        + "\(type(of: wide).installationWidePart), which every household shares."
                )
            }
            let location: StoreLocation?
            do {
                location = try DatabaseOptions.location(databaseOption, environment: environment)
            } catch let error as ValidationError {
                throw DatabaseChoiceError(description: error.message)
            }
            if case .postgres(let postgres)? = location {
                DatabaseOptions.warnOfPassword(in: postgres, givenAsOption: databaseOption != nil)
            }
            let answersWithout = command is any AnswersWithoutCollection
            try await CommandContext.run(
                location, directory: directory, environment: environment, toleratingAbsence: answersWithout
            ) { context in
                var scope: HouseholdScope?
                // The commands every household shares have no household to look up (PLANTGUIDE_HOUSEHOLD set for everyday
                // use does not concern them), nor has a command answering without its unreachable database.
                if !(command is any ServesEveryHousehold), !context.isUnavailable,
                    let chosen = HouseholdOption.chosenName(householdOption, environment: environment) {
                    scope = try await HouseholdOption.scope(named: chosen, in: context)
                }
                try await HouseholdScope.$current.withValue(scope) { try await databaseCommand.run(in: context) }
            }
        } catch {
            exit(withError: error)
        }
    }
}

extension PlantGuideCommand {
    /// The command's words as typed, e.g. `household list` or `care due`, for messages; `nil` when none is recognised.
    static func commandPath(_ arguments: [String]) -> String? {
        var path: [String] = []
        var choices = configuration.subcommands
        for word in arguments where !word.hasPrefix("-") {
            guard let next = choices.first(where: { $0.configuration.commandName == word }) else { break }
            path.append(word)
            choices = next.configuration.subcommands
        }
        return path.isEmpty ? nil : path.joined(separator: " ")
    }
}
