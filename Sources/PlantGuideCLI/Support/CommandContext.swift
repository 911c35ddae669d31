import Foundation
import PlantGuideCore
import PlantLocalization
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite
import Synchronization

/// What one run of `plantguide` works on: its data directory, its environment and the database it chose
/// (`--database URL`, else `PLANTGUIDE_DATABASE_URL`, else the data directory's `collection.sqlite`, as for `serve`).
///
/// `PlantGuideCommand` makes one for the run and hands it to the command (``UsesCollectionDatabase/run(in:)``), which
/// hands it to every part that needs the store. The store is opened once, when a part first asks, and every later part
/// shares it: one connection pool and one set of kept lists for the Pl@ntNet state, the learned names, the statistics log
/// and the collection. PostgreSQL is connected (and set up) once, for exactly as long as the command runs.
final class CommandContext: Sendable {
    /// Where the database is, as chosen for the run.
    enum Choice: Sendable {
        /// The data directory's SQLite file.
        case dataDirectory
        /// An SQLite file named by `sqlite:PATH`.
        case sqlite(URL)
        /// A connected PostgreSQL store.
        case postgres(PostgresStore)
        /// A database that could not be reached, for a command that answers without it (``AnswersWithoutCollection``):
        /// ``open()`` throws this.
        case unavailable(StoreError)
    }

    /// The data directory: photos, models, the API key, and the default database.
    let directory: DataDirectory
    /// The environment the run reads its settings from.
    let environment: [String: String]
    /// Where the database is.
    let choice: Choice
    private let opened = Mutex<(any PlantGuideStore)?>(nil)

    /// The texts of the run's human output, in the terminal's language: the first non-empty of `LC_ALL`,
    /// `LC_MESSAGES` and `LANG` (`en-XA` only under `PLANTGUIDE_PSEUDO_LOCALE=1`). `--json` never changes with it.
    var localizer: Localizer {
        Localizer.shared(InterfaceLanguage.fromEnvironment(environment, pseudoAllowed: environment["PLANTGUIDE_PSEUDO_LOCALE"] == "1"))
    }

    /// A context for a run on `choice`.
    init(directory: DataDirectory, environment: [String: String] = ProcessInfo.processInfo.environment, choice: Choice = .dataDirectory) {
        self.directory = directory
        self.environment = environment
        self.choice = choice
    }

    /// The context of a command that keeps to the data directory (no `--database`): its SQLite file.
    static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> CommandContext {
        CommandContext(directory: .resolve(environment: environment), environment: environment)
    }

    /// Runs `body` with a context on `location`: PostgreSQL is connected first (a clear error when it cannot be), and
    /// closed when `body` returns. With `toleratingAbsence`, a PostgreSQL server that cannot be reached is said on
    /// standard error and `body` runs without it (``Choice/unavailable(_:)``).
    static func run<Result: Sendable>(
        _ location: StoreLocation?, directory: DataDirectory, environment: [String: String] = ProcessInfo.processInfo.environment,
        toleratingAbsence: Bool = false, _ body: (CommandContext) async throws -> Result
    ) async throws -> Result {
        switch location {
        case nil:
            return try await body(CommandContext(directory: directory, environment: environment))
        case .sqlite(let path)?:
            let url = URL(fileURLWithPath: path)
            let isDefault = url.standardizedFileURL.path == directory.appending(CollectionDatabase.fileName).standardizedFileURL.path
            return try await body(CommandContext(directory: directory, environment: environment, choice: isDefault ? .dataDirectory : .sqlite(url)))
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
                    return try await body(CommandContext(directory: directory, environment: environment, choice: .postgres(store)))
                }
            } catch let error as StoreError where !connected && toleratingAbsence {
                Console().warn(
                    "warning: the collection database \(postgres) cannot be reached (\(error)); answering without it, so "
                        + "nothing is saved and your own plants are not recognised."
                )
                return try await body(CommandContext(directory: directory, environment: environment, choice: .unavailable(error)))
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

    /// The chosen database, opened on first use (an SQLite file is created and migrated when missing) and shared by
    /// every later ask.
    func open() throws -> any PlantGuideStore {
        // Opened under the lock: two parts asking at once wait for one open instead of migrating the file twice.
        try opened.withLock { opened in
            if let opened { return opened }
            let store: any PlantGuideStore
            switch choice {
            case .dataDirectory: store = try CollectionDatabase.open(in: directory)
            case .sqlite(let url): store = try CollectionDatabase.open(at: url)
            case .postgres(let postgres): store = postgres
            case .unavailable(let error): throw error
            }
            opened = store
            return store
        }
    }

    /// Whether this context has opened its database yet.
    var isOpen: Bool { opened.withLock { $0 != nil } }

    /// Whether there is a collection to read: the SQLite file exists, or PostgreSQL is connected. What only reads the
    /// collection (`species show`'s learned names, an identification's own plants) looks first, so it never creates
    /// one for that.
    var hasCollection: Bool {
        switch choice {
        case .dataDirectory: FileManager.default.fileExists(atPath: directory.appending(CollectionDatabase.fileName).path)
        case .sqlite(let url): FileManager.default.fileExists(atPath: url.path)
        case .postgres: true
        case .unavailable: false
        }
    }

    /// The chosen database when there is a collection (``hasCollection``), else `nil`.
    func existing() throws -> (any PlantGuideStore)? {
        hasCollection ? try open() : nil
    }

    /// Whether the chosen database could not be reached (for a command that answers without it).
    var isUnavailable: Bool {
        if case .unavailable = choice { return true }
        return false
    }
}

/// The commands that give their answer without the collection's database when it cannot be reached (an identification,
/// a species' facts), saying so, instead of failing: the database only adds to their answer.
protocol AnswersWithoutCollection {}

extension IdentifyCommand: AnswersWithoutCollection {}
extension SpeciesShowCommand: AnswersWithoutCollection {}
extension DiagnoseCommand: AnswersWithoutCollection {}
