import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite

/// `--database URL`: where the collection's records, the accounts and the state shared by replicas are kept.
struct DatabaseOptions: ParsableArguments {
    /// The environment variable that names the database when `--database` is not given.
    static let environmentVariable = "PLANTGUIDE_DATABASE_URL"

    @Option(
        name: .customLong("database"),
        help: ArgumentHelp(
            "sqlite:PATH or postgres://USER@HOST[:PORT]/DATABASE[?sslmode=require]: where the collection, the accounts "
                + "and what replicas share are kept (default: \(DatabaseOptions.environmentVariable), else "
                + "collection.sqlite in the data directory). Photos stay in the data directory. Give a password in "
                + "\(DatabaseOptions.environmentVariable), not here: other users of the machine see command lines.",
            valueName: "url"
        )
    )
    var url: String?

    /// The database chosen: `--database`, else `PLANTGUIDE_DATABASE_URL`; `nil` for the data directory's SQLite file.
    static func location(_ option: String?, environment: [String: String]) throws -> StoreLocation? {
        let chosen = option ?? environment[environmentVariable].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        guard let chosen else { return nil }
        do {
            return try StoreLocation(url: chosen)
        } catch {
            throw ValidationError("\(option == nil ? environmentVariable : "--database"): \(error.description)")
        }
    }

    /// Runs `body` with the chosen store: the SQLite database (the data directory's, or the file named), or PostgreSQL,
    /// connected and migrated for exactly as long as `body` runs. The SQLite database is passed again as such, for what
    /// only it has (the password file of earlier versions).
    func withStore<Result: Sendable>(
        directory: DataDirectory, environment: [String: String],
        _ body: (any PlantGuideStore, CollectionDatabase?) async throws -> Result
    ) async throws -> Result {
        switch try Self.location(url, environment: environment) {
        case nil:
            let database = try CollectionDatabase.open(in: directory)
            return try await body(database, database)
        case .sqlite(let path)?:
            let database = try CollectionDatabase.open(at: URL(fileURLWithPath: path))
            return try await body(database, database)
        case .postgres(let location)?:
            Self.warnOfPassword(in: location, givenAsOption: url != nil)
            return try await PostgresStore.withStore(location) { store in try await body(store, nil) }
        }
    }

    /// Warns that a password in `--database` shows in the process list (one in the environment variable does not).
    static func warnOfPassword(in location: PostgresLocation, givenAsOption: Bool) {
        guard givenAsOption, location.password != nil else { return }
        Console().warn(
            "warning: --database carries a password, which other users of this machine can read in the process list; "
                + "put the URL in \(environmentVariable) instead."
        )
    }
}

/// The commands that use the collection, the Pl@ntNet quota and cache, or the identification log, but `serve` and
/// `user`, which take `--database` as an option of their own: they work on the database the run's ``CommandContext``
/// chose, and for the household `--household` chose.
protocol UsesCollectionDatabase: AsyncParsableCommand {
    /// Does the command's work on `context`'s database.
    func run(in context: CommandContext) async throws
}

extension UsesCollectionDatabase {
    /// Runs on the data directory's database: how ArgumentParser runs a command outside `PlantGuideCommand`, which
    /// calls ``run(in:)`` with the run's context instead.
    func run() async throws {
        try await run(in: .dataDirectory())
    }
}

extension BackupCommand: UsesCollectionDatabase {}
extension CacheClearCommand: UsesCollectionDatabase {}
extension CacheStatsCommand: UsesCollectionDatabase {}
extension CareAssignCommand: UsesCollectionDatabase {}
extension CareCheckCommand: UsesCollectionDatabase {}
extension CareConditionsCommand: UsesCollectionDatabase {}
extension CareDoneCommand: UsesCollectionDatabase {}
extension CareDueCommand: UsesCollectionDatabase {}
extension CareICSCommand: UsesCollectionDatabase {}
extension CareScheduleCommand: UsesCollectionDatabase {}
extension CareSnoozeCommand: UsesCollectionDatabase {}
extension CareUndoCommand: UsesCollectionDatabase {}
extension CollectionAddCommand: UsesCollectionDatabase {}
extension CollectionConfirmCommand: UsesCollectionDatabase {}
extension CollectionFindCommand: UsesCollectionDatabase {}
extension CollectionHealthRemoveCommand: UsesCollectionDatabase {}
extension CollectionListCommand: UsesCollectionDatabase {}
extension CollectionPhotoAddCommand: UsesCollectionDatabase {}
extension CollectionPhotoListCommand: UsesCollectionDatabase {}
extension CollectionPhotoRemoveCommand: UsesCollectionDatabase {}
extension CollectionPhotoSetCoverCommand: UsesCollectionDatabase {}
extension CollectionReindexCommand: UsesCollectionDatabase {}
extension CollectionRemoveCommand: UsesCollectionDatabase {}
extension CollectionShowCommand: UsesCollectionDatabase {}
extension CollectionUnconfirmCommand: UsesCollectionDatabase {}
extension DiagnoseCommand: UsesCollectionDatabase {}
extension ExportCommand: UsesCollectionDatabase {}
extension IdentifyCommand: UsesCollectionDatabase {}
extension ImportCommand: UsesCollectionDatabase {}
extension QuotaCommand: UsesCollectionDatabase {}
extension RecheckAcceptCommand: UsesCollectionDatabase {}
extension RecheckDismissCommand: UsesCollectionDatabase {}
extension RecheckListCommand: UsesCollectionDatabase {}
extension RecheckRescoreCommand: UsesCollectionDatabase {}
extension RecheckRunCommand: UsesCollectionDatabase {}
extension RemoveAPIKeyCommand: UsesCollectionDatabase {}
extension SetAPIKeyCommand: UsesCollectionDatabase {}
extension SpeciesShowCommand: UsesCollectionDatabase {}
extension StatsCommand: UsesCollectionDatabase {}
extension WriteStressCommand: UsesCollectionDatabase {}

/// `--database` given to a command that does not use the collection, or naming no database PlantGuide can use.
struct DatabaseChoiceError: Error, CustomStringConvertible {
    let description: String
}
