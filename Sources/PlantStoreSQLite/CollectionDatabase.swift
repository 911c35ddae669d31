import Foundation
import GRDB
import PlantGuideCore
import PlantStore

/// The collection database: plants, photos, identification history, care profiles, schedules and
/// events, in one SQLite file.
///
/// Every method that changes several rows does so in one transaction, so a crash leaves either the
/// old or the new state. The schema's constraints (NOT NULL, foreign keys, CHECK) guard the data
/// whatever a caller does.
public struct CollectionDatabase: Sendable {
    /// The name of the database file in the data directory.
    public static let fileName = "collection.sqlite"

    /// The connection (a pool in WAL mode for files).
    public let writer: any DatabaseWriter
    /// Where the database lives, for messages.
    public let path: String
    /// The household operations act for when the task sets no ``HouseholdScope/current``: household 1 unless
    /// changed with ``scoped(to:)``; `nil` after `scoped(to: nil)`, which makes such operations fail closed.
    public private(set) var defaultScope: HouseholdScope? = .home
    /// The care states read lately, shared by every copy of this value (``scoped(to:)``); see ``careStates(plantId:room:)``.
    package let careCache = HouseholdCache<PlantCareState>()
    /// The plant lists read lately, shared likewise; see ``plants(room:)``.
    package let plantCache = HouseholdCache<Plant>()

    /// `household`'s change stamp (v16; see ``HouseholdCache``), 0 before its first.
    static func changeStamp(_ db: Database, household: Int64) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT stamp FROM changeStamp WHERE householdId = ?", arguments: [household]) ?? 0
    }

    /// `household`'s list kept in `cache` as of `stamp`: the one kept if it was read at `stamp`, else the one kept before
    /// brought up to date with `fresh`, the current elements of the plants changed since (``KeptLists``); `nil` when the
    /// list is to be read whole.
    static func keptList<Element>(
        _ db: Database, _ cache: HouseholdCache<Element>, household: Int64, stamp: Int64,
        fresh: ([Int64]) throws -> [Element], plantId: (Element) -> Int64, precedes: (Element, Element) -> Bool
    ) throws -> [Element]? {
        if let elements = cache.elements(household: household, stamp: stamp) { return elements }
        guard let keptStamp = cache.keptStamp(household: household),
              let changed = try changedPlants(db, household: household, since: keptStamp, current: stamp)
        else { return nil }
        return cache.patch(
            household: household, from: keptStamp, to: stamp, changed: changed, fresh: try fresh(changed), plantId: plantId,
            precedes: precedes
        )
    }

    /// Ids as an SQL list, `(1, 2, 3)`: numbers, written into a statement as they are.
    static func sqlList(_ ids: [Int64]) -> String {
        "(" + ids.map(String.init).joined(separator: ", ") + ")"
    }

    /// The plants of `household` changed since a list kept at `stamp` was read (see ``KeptLists``), or `nil` when the list
    /// is to be read again whole: the log does not reach back to it, or more plants changed than are worth reading alone.
    private static func changedPlants(_ db: Database, household: Int64, since stamp: Int64, current: Int64) throws -> [Int64]? {
        let since = try Int64.fetchOne(db, sql: "SELECT since FROM changeStamp WHERE householdId = ?", arguments: [household])
        guard KeptLists.canPatch(keptStamp: stamp, since: since, current: current) else { return nil }
        let plants = try Int64.fetchAll(
            db, sql: "SELECT plantId FROM plantChange WHERE householdId = ? AND stamp > ? LIMIT ?",
            arguments: [household, stamp, KeptLists.patchLimit + 1]
        )
        return plants.count > KeptLists.patchLimit ? nil : plants
    }

    /// The same database, acting for `scope` whenever the task sets none; with `nil`, an operation outside a task's
    /// ``HouseholdScope/current`` throws ``StoreError/noHousehold(operation:)`` (the web app opens its store so, since
    /// every request has its own scope).
    public func scoped(to scope: HouseholdScope?) -> CollectionDatabase {
        var copy = self
        copy.defaultScope = scope
        return copy
    }

    /// The household (and account) an operation acts for; see ``HouseholdScope``.
    func scope(_ operation: String) throws(StoreError) -> HouseholdScope {
        try HouseholdScope.resolve(default: defaultScope, operation: operation)
    }

    /// Opens (creating if missing) the collection database in a data directory.
    ///
    /// A file at that path that is not a PlantGuide database is never touched: opening fails with
    /// ``StoreError/notADatabase(path:)`` or ``StoreError/foreignDatabase(path:)``.
    public static func open(in directory: DataDirectory) throws(StoreError) -> CollectionDatabase {
        do {
            try directory.create()
        } catch {
            throw .file(path: directory.url.path, reason: "cannot create the data directory (\(error.localizedDescription))")
        }
        return try open(at: directory.appending(fileName))
    }

    /// Opens (creating if missing) a collection database file.
    public static func open(at url: URL) throws(StoreError) -> CollectionDatabase {
        let path = url.path
        if try checkHeader(path: path) {
            try inspectReadOnly(path: path)
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw classify(error, path: path, operation: "open \(path)")
        }
        return try CollectionDatabase(writer: pool, path: path)
    }

    /// Wraps an open connection (any GRDB writer), checking and migrating its schema.
    public init(writer: any DatabaseWriter, path: String) throws(StoreError) {
        self.writer = writer
        self.path = path
        do {
            try writer.read { db in try Self.checkSchema(db, path: path) }
            try Schema.migrator.migrate(writer)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.classify(error, path: path, operation: "open \(path)")
        }
    }

    /// Migration identifiers applied to this database, oldest first.
    public func appliedMigrations() throws(StoreError) -> [String] {
        try read("read the schema version") { db in try Schema.migrator.appliedMigrations(db) }
    }

    /// Runs SQLite's integrity check; returns its messages ("ok" when sound).
    public func integrityCheck() throws(StoreError) -> [String] {
        try read("check the database") { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Copies the write-ahead log into the database file and empties it (e.g. before measuring size).
    public func checkpoint() throws(StoreError) {
        do {
            _ = try writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        } catch {
            throw Self.classify(error, path: path, operation: "checkpoint the database")
        }
    }

    /// Writes a consistent copy of the database to `url` while it stays in use (SQLite online backup).
    /// An existing file at `url` is replaced only once the copy is complete.
    ///
    /// The source gets SQLite's full integrity check first, and the copy a quick one before it replaces anything:
    /// a backup is what people restore from, so a damaged source is an error (``StoreError/corrupted(path:reason:)``),
    /// never a copy reported as a success.
    public func backup(to url: URL) throws(StoreError) {
        let problems: [String]
        do throws(StoreError) {
            problems = try integrityCheck()
        } catch {
            // Damage bad enough makes the check itself fail instead of listing problems: still no backup.
            guard case .corrupted(_, let reason) = error else { throw error }
            throw .corrupted(path: path, reason: "\(reason); no backup was written")
        }
        guard problems == ["ok"] else {
            throw .corrupted(path: path, reason: "the integrity check found \(problems.count) problem(s), first: \(problems.first ?? "?"); "
                + "no backup was written")
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        do {
            let destination = try DatabaseQueue(path: temporary.path)
            try writer.backup(to: destination)
            let copyCheck = try destination.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            try destination.close()
            guard copyCheck == ["ok"] else {
                throw StoreError.corrupted(path: url.path, reason: "the copy failed its check (\(copyCheck.first ?? "?"))")
            }
            if FileManager.default.fileExists(atPath: url.path) {
                _ = try FileManager.default.replaceItemAt(url, withItemAt: temporary)
            } else {
                try FileManager.default.moveItem(at: temporary, to: url)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.classify(error, path: url.path, operation: "back up to \(url.path)")
        }
    }

    // MARK: - Helpers for the feature extensions

    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.classify(error, path: path, operation: operation)
        }
    }

    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.write(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.classify(error, path: path, operation: operation)
        }
    }

    static func classify(_ error: any Error, path: String, operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: return .notADatabase(path: path)
            case .SQLITE_CORRUPT: return .corrupted(path: path, reason: error.message ?? "\(error)")
            case .SQLITE_CONSTRAINT: return .invalid("The collection refused the change (\(error.message ?? "constraint failed")).")
            default: return .database(operation: operation, reason: error.message ?? "\(error)")
            }
        }
        return .database(operation: operation, reason: "\(error)")
    }

    /// Refuses a non-empty file that does not start with SQLite's magic header, before SQLite
    /// touches it. Returns whether there is an existing database to inspect.
    private static func checkHeader(path: String) throws(StoreError) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw .file(path: path, reason: "cannot be read (check its permissions)")
            }
            return false
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        // An existing empty file is not a new collection: it may be what is left of one (a truncated copy, a full
        // disk). Opening it would silently start an empty collection over it, so it is refused.
        if header.isEmpty {
            throw .file(path: path, reason: "is empty (0 bytes), so it holds no collection. PlantGuide left it untouched: "
                + "restore your backup over it; or, if PlantGuide was interrupted while creating it, delete it to start "
                + "a new collection")
        }
        guard header == Data("SQLite format 3\0".utf8) else { throw .notADatabase(path: path) }
        return true
    }

    /// Checks an existing file read-only, so a foreign or damaged database is not changed (not even
    /// switched to WAL mode) before it is refused.
    private static func inspectReadOnly(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.readonly = true
        // Another process may be writing or checkpointing: wait for it like the writer does, never fail at once.
        configuration.busyMode = .timeout(10)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { db in
                try checkSchema(db, path: path)
                try checkPagesIfDue(db, path: path)
            }
        } catch {
            throw classify(error, path: path, operation: "open \(path)")
        }
    }

    /// How often opening the database runs SQLite's quick check (every page read once: tens of milliseconds for
    /// a large collection, too much for every command, enough to notice damage within a day).
    static let quickCheckInterval: TimeInterval = 24 * 3600

    /// Runs `PRAGMA quick_check` when the last good one is older than ``quickCheckInterval`` (recorded in a
    /// small file beside the database), so damage in the middle of the file is noticed by whatever command
    /// comes first, not only by the commands that happen to read the damaged page.
    private static func checkPagesIfDue(_ db: Database, path: String) throws {
        let marker = URL(fileURLWithPath: path + "-checked")
        if let text = try? String(contentsOf: marker, encoding: .utf8), let last = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)),
           Date().timeIntervalSince1970 - last < quickCheckInterval, last <= Date().timeIntervalSince1970 {
            return
        }
        let result = try String.fetchAll(db, sql: "PRAGMA quick_check")
        guard result == ["ok"] else {
            throw StoreError.corrupted(path: path, reason: "SQLite's quick check found \(result.count) problem(s), first: \(result.first ?? "?")")
        }
        try? Data(String(Int(Date().timeIntervalSince1970)).utf8).write(to: marker, options: .atomic)
    }

    /// Throws unless the database is empty or was written by this or an older PlantGuide.
    private static func checkSchema(_ db: Database, path: String) throws {
        guard try db.tableExists("grdb_migrations") else {
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
            if tables.isEmpty { return }
            throw StoreError.foreignDatabase(path: path)
        }
        let applied = try Schema.migrator.appliedIdentifiers(db)
        let unknown = applied.subtracting(Schema.migrationIdentifiers)
        guard unknown.isEmpty else { throw StoreError.newerDatabase(path: path, unknownMigrations: unknown.sorted()) }
    }
}
