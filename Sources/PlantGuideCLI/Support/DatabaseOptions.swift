import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres

/// The stores `serve` and `user` work on: the collection with its accounts.
typealias AccountsAndCollection = CollectionStore & AccountStore

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
        _ body: (any AccountsAndCollection, CollectionDatabase?) async throws -> Result
    ) async throws -> Result {
        switch try Self.location(url, environment: environment) {
        case nil:
            let database = try CollectionDatabase.open(in: directory)
            return try await body(database, database)
        case .sqlite(let path)?:
            let database = try CollectionDatabase.open(at: URL(fileURLWithPath: path))
            return try await body(database, database)
        case .postgres(let location)?:
            if url != nil, location.password != nil {
                Console().warn(
                    "warning: --database carries a password, which other users of this machine can read in the process list; "
                        + "put the URL in \(Self.environmentVariable) instead."
                )
            }
            return try await PostgresStore.withStore(location) { store in try await body(store, nil) }
        }
    }

    /// Refuses to run a command that keeps its records in the data directory's SQLite database while
    /// `PLANTGUIDE_DATABASE_URL` names another database, instead of quietly writing where the web app does not read.
    static func requireDataDirectoryDatabase(_ command: String, directory: DataDirectory, environment: [String: String]) throws {
        guard let location = try location(nil, environment: environment) else { return }
        if case .sqlite(let path) = location,
            URL(fileURLWithPath: path).standardizedFileURL.path == directory.appending(CollectionDatabase.fileName).standardizedFileURL.path {
            return
        }
        throw DatabaseChoiceError(
            description: "plantguide \(command) keeps its records in the data directory's SQLite database for now, but "
                + "\(environmentVariable) names \(location). Only `plantguide serve` and `plantguide user` work on another "
                + "database so far; unset \(environmentVariable) for this command."
        )
    }
}

/// A command run against a database it does not work on yet.
struct DatabaseChoiceError: Error, CustomStringConvertible {
    let description: String
}

/// The commands that keep their records in the data directory's SQLite database: all that use the collection, the
/// Pl@ntNet quota and cache, or the identification log, but `serve` and `user`, which take `--database`.
protocol UsesDataDirectoryDatabase {}

extension BackupCommand: UsesDataDirectoryDatabase {}
extension CacheClearCommand: UsesDataDirectoryDatabase {}
extension CacheStatsCommand: UsesDataDirectoryDatabase {}
extension CareDoneCommand: UsesDataDirectoryDatabase {}
extension CareDueCommand: UsesDataDirectoryDatabase {}
extension CareICSCommand: UsesDataDirectoryDatabase {}
extension CareScheduleCommand: UsesDataDirectoryDatabase {}
extension CareSnoozeCommand: UsesDataDirectoryDatabase {}
extension CollectionAddCommand: UsesDataDirectoryDatabase {}
extension CollectionConfirmCommand: UsesDataDirectoryDatabase {}
extension CollectionFindCommand: UsesDataDirectoryDatabase {}
extension CollectionListCommand: UsesDataDirectoryDatabase {}
extension CollectionPhotoAddCommand: UsesDataDirectoryDatabase {}
extension CollectionPhotoListCommand: UsesDataDirectoryDatabase {}
extension CollectionPhotoRemoveCommand: UsesDataDirectoryDatabase {}
extension CollectionPhotoSetCoverCommand: UsesDataDirectoryDatabase {}
extension CollectionReindexCommand: UsesDataDirectoryDatabase {}
extension CollectionRemoveCommand: UsesDataDirectoryDatabase {}
extension CollectionShowCommand: UsesDataDirectoryDatabase {}
extension CollectionUnconfirmCommand: UsesDataDirectoryDatabase {}
extension ExportCommand: UsesDataDirectoryDatabase {}
extension IdentifyCommand: UsesDataDirectoryDatabase {}
extension ImportCommand: UsesDataDirectoryDatabase {}
extension QuotaCommand: UsesDataDirectoryDatabase {}
extension RecheckAcceptCommand: UsesDataDirectoryDatabase {}
extension RecheckDismissCommand: UsesDataDirectoryDatabase {}
extension RecheckListCommand: UsesDataDirectoryDatabase {}
extension RecheckRescoreCommand: UsesDataDirectoryDatabase {}
extension RecheckRunCommand: UsesDataDirectoryDatabase {}
extension RemoveAPIKeyCommand: UsesDataDirectoryDatabase {}
extension SetAPIKeyCommand: UsesDataDirectoryDatabase {}
extension SpeciesCommand: UsesDataDirectoryDatabase {}
extension SpeciesShowCommand: UsesDataDirectoryDatabase {}
extension StatsCommand: UsesDataDirectoryDatabase {}
extension WriteStressCommand: UsesDataDirectoryDatabase {}
