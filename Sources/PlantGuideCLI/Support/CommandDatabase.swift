import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite
import Synchronization

/// The database the commands that use the collection work on for one run of `plantguide`: `--database URL`, else
/// `PLANTGUIDE_DATABASE_URL`, else the data directory's `collection.sqlite`, as for `serve`. PostgreSQL is connected
/// (and migrated) once, for exactly as long as the command runs; an SQLite file is opened when a command first needs it,
/// so a command that only reads never creates one.
enum CommandDatabase {
    /// The database chosen for this run, when it is not the data directory's SQLite file.
    enum Choice: Sendable {
        /// An SQLite file named by `sqlite:PATH`.
        case sqlite(URL)
        /// A connected PostgreSQL store.
        case postgres(PostgresStore)
        /// A database that could not be reached, for a command that answers without it (``AnswersWithoutCollection``):
        /// every ``open(in:)`` throws this.
        case unavailable(StoreError)
    }

    /// Set by ``run(_:directory:_:)`` for the command's run; `nil` is the data directory's SQLite file.
    @TaskLocal static var chosen: Choice?

    /// Runs `body` with `location` chosen for every ``open(in:)`` inside it: PostgreSQL is connected first (a clear
    /// error when it cannot be), and closed when `body` returns. With `toleratingAbsence`, a PostgreSQL server that
    /// cannot be reached is said on standard error and `body` runs without it (``Choice/unavailable(_:)``).
    static func run<Result: Sendable>(
        _ location: StoreLocation?, directory: DataDirectory, toleratingAbsence: Bool = false, _ body: () async throws -> Result
    ) async throws -> Result {
        switch location {
        case nil:
            return try await body()
        case .sqlite(let path)?:
            let url = URL(fileURLWithPath: path)
            if url.standardizedFileURL.path == directory.appending(CollectionDatabase.fileName).standardizedFileURL.path {
                return try await body()
            }
            return try await $chosen.withValue(.sqlite(url)) { try await body() }
        case .postgres(let postgres)?:
            var connected = false
            // The command line sets up a new database, but leaves upgrading one to `plantguide serve`: replicas of the
            // version that uses it may still be running (see docs/deploy.md, "upgrade all replicas together").
            var options = PostgresStore.Options()
            options.migrate = false
            do {
                return try await PostgresStore.withStore(postgres, options: options) { store in
                    connected = true
                    try await requireCurrentSchema(store, location: postgres)
                    return try await $chosen.withValue(.postgres(store)) { try await body() }
                }
            } catch let error as StoreError where !connected && toleratingAbsence {
                Console().warn(
                    "warning: the collection database \(postgres) cannot be reached (\(error)); answering without it, so "
                        + "nothing is saved and your own plants are not recognised."
                )
                return try await $chosen.withValue(.unavailable(error)) { try await body() }
            }
        }
    }

    /// Sets up a database that has no PlantGuide schema yet, and refuses one whose schema is older or newer than this
    /// version's, saying what to do.
    private static func requireCurrentSchema(_ store: PostgresStore, location: PostgresLocation) async throws {
        let applied = try await store.appliedMigrations()
        if applied.isEmpty {
            try await store.migrate()
            return
        }
        let known = PostgresStore.knownMigrations
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw StoreError.newerDatabase(path: location.description, unknownMigrations: unknown) }
        let missing = known.filter { !applied.contains($0) }
        guard missing.isEmpty else {
            throw DatabaseChoiceError(
                description: "The database \(location) has the schema of an older PlantGuide (it lacks "
                    + "\(missing.joined(separator: ", "))). Stop the servers that use it and start this version's "
                    + "`plantguide serve`, which upgrades it; then run this command again."
            )
        }
    }

    /// The chosen database, opened (an SQLite file is created and migrated when missing). A run opens an SQLite file
    /// once, however many of its parts ask (the quota and cache, the learned names, the statistics log, the collection):
    /// the first open checks and migrates it, and later ones share its connection pool and its kept lists.
    static func open(in directory: DataDirectory) throws -> any PlantGuideStore {
        switch chosen {
        case nil:
            return try openFile(directory.appending(CollectionDatabase.fileName)) { try CollectionDatabase.open(in: directory) }
        case .sqlite(let url)?: return try openFile(url) { try CollectionDatabase.open(at: url) }
        case .postgres(let store)?: return store
        case .unavailable(let error)?: throw error
        }
    }

    /// The SQLite files this process opened, by path. One process runs one command, so this is the run's.
    private static let openedFiles = Mutex<[String: CollectionDatabase]>([:])

    /// How many times this process opened an SQLite file (not counting the times it was handed one already open).
    static var fileOpenCount: Int { openCount.withLock { $0 } }
    private static let openCount = Mutex(0)

    private static func openFile(_ url: URL, opening: () throws -> CollectionDatabase) throws -> CollectionDatabase {
        let key = url.standardizedFileURL.path
        // Opened under the lock: two parts asking at once wait for one open instead of migrating the file twice.
        return try openedFiles.withLock { opened in
            if let database = opened[key] { return database }
            let database = try opening()
            opened[key] = database
            openCount.withLock { $0 += 1 }
            return database
        }
    }

    /// Whether there is a collection to read: the SQLite file exists, or PostgreSQL is connected. A command that only
    /// reads, such as `species show` or an identification, looks first and so never creates a collection.
    static func hasCollection(in directory: DataDirectory) -> Bool {
        switch chosen {
        case nil: FileManager.default.fileExists(atPath: directory.appending(CollectionDatabase.fileName).path)
        case .sqlite(let url)?: FileManager.default.fileExists(atPath: url.path)
        case .postgres?: true
        case .unavailable?: false
        }
    }

    /// The chosen database when there is a collection (``hasCollection(in:)``), else `nil`.
    static func existing(in directory: DataDirectory) throws -> (any PlantGuideStore)? {
        hasCollection(in: directory) ? try open(in: directory) : nil
    }

    /// Whether the chosen database could not be reached (for a command that answers without it).
    static var isUnavailable: Bool {
        if case .unavailable? = chosen { return true }
        return false
    }
}

/// The commands that give their answer without the collection's database when it cannot be reached (an identification,
/// a species' facts), saying so, instead of failing: the database only adds to their answer.
protocol AnswersWithoutCollection {}

extension IdentifyCommand: AnswersWithoutCollection {}
extension SpeciesShowCommand: AnswersWithoutCollection {}
