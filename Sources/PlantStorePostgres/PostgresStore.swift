import Foundation
import Logging
import PlantStore
import PostgresNIO

/// The collection store on PostgreSQL: a connection pool (postgres-nio's `PostgresClient`) that runs for exactly as
/// long as ``withStore(_:options:_:)``'s body, and the schema's migrations (``PostgresSchema``).
///
/// ```swift
/// let location = try StoreLocation(url: "postgres://plantguide@/plantguide?host=/run/postgresql")
/// try await PostgresStore.withStore(location) { store in
///     print(try await store.appliedMigrations())   // ["pg1"]
/// }
/// ```
///
/// Opening first makes one connection of its own, bounded by ``Options/connectTimeout``, so a server that is not
/// there, a wrong password or a missing database fail at once with ``StoreError/connection(location:reason:)``
/// instead of leaving requests waiting on a pool that retries forever. No error text ever shows the password.
public final class PostgresStore: Sendable {
    /// How the store connects.
    public struct Options: Sendable {
        /// How long opening may take to reach the server and log in. Defaults to 5 seconds.
        public var connectTimeout: Duration = .seconds(5)
        /// The schema search path each connection sets at log-in (`search_path`), when not the server's default.
        public var searchPath: String?
        /// The most connections the pool opens. Defaults to 20.
        public var maximumConnections: Int = 20
        /// Whether opening runs the migrations this version knows. Defaults to `true`.
        public var migrate: Bool = true
        /// How long an operation may wait for a connection of the pool (all busy, or the server gone and new
        /// connections failing) before it fails with ``StoreError/connection(location:reason:)``. Defaults to 10
        /// seconds. It bounds the wait only, not the statements once a connection is there.
        public var leaseTimeout: Duration = .seconds(10)

        /// Default options: a 5-second connect time-out, the server's search path, 20 connections, migrating, a
        /// 10-second wait for a connection at most.
        public init() {}
        /// The household operations act for when the task sets no ``HouseholdScope/current``; `nil` makes them fail
        /// closed with ``StoreError/noHousehold(operation:)`` (the web app, where every request has its own scope).
        public var defaultScope: HouseholdScope? = .home
    }

    /// Where the store is (its ``PostgresLocation/description`` hides the password).
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    private let leaseTimeout: Duration
    /// The household operations act for when the task sets none; see ``Options/defaultScope``.
    public let defaultScope: HouseholdScope?
    /// The care states read lately, shared by every ``scoped(to:)`` copy; see ``careStates(plantId:room:)``.
    package let careCache: HouseholdCache<PlantCareState>
    /// The plant lists read lately, shared likewise; see ``plants(room:)``.
    package let plantCache: HouseholdCache<Plant>

    private init(
        location: PostgresLocation, client: PostgresClient, logger: Logger, leaseTimeout: Duration, defaultScope: HouseholdScope?,
        careCache: HouseholdCache<PlantCareState>, plantCache: HouseholdCache<Plant>
    ) {
        self.location = location
        self.client = client
        self.logger = logger
        self.leaseTimeout = leaseTimeout
        self.defaultScope = defaultScope
        self.careCache = careCache
        self.plantCache = plantCache
    }

    /// The same store (one connection pool), acting for `scope` whenever the task sets none.
    public func scoped(to scope: HouseholdScope?) -> PostgresStore {
        PostgresStore(
            location: location, client: client, logger: logger, leaseTimeout: leaseTimeout, defaultScope: scope,
            careCache: careCache, plantCache: plantCache
        )
    }

    /// The household (and account) an operation acts for; see ``HouseholdScope``.
    func scope(_ operation: String) throws(StoreError) -> HouseholdScope {
        try HouseholdScope.resolve(default: defaultScope, operation: operation)
    }

    /// Opens the store at `location`, migrates it (unless ``Options/migrate`` is off), runs `body` with it, and closes
    /// it again, also when `body` throws or the task is cancelled.
    ///
    /// - Throws: ``StoreError/invalid(_:)`` for an SQLite location, ``StoreError/connection(location:reason:)`` when
    ///   the server cannot be reached or refuses the log-in, ``StoreError/newerDatabase(path:unknownMigrations:)``
    ///   for a database a newer PlantGuide migrated, ``StoreError/database(operation:reason:)`` when a migration
    ///   fails; and whatever `body` throws.
    public static func withStore<Result: Sendable>(
        _ location: StoreLocation,
        options: Options = Options(),
        _ body: (PostgresStore) async throws -> Result
    ) async throws -> Result {
        guard case .postgres(let postgres) = location else {
            throw StoreError.invalid("\(location) is an SQLite location; PostgresStore opens postgres:// URLs only.")
        }
        return try await withStore(postgres, options: options, body)
    }

    /// Opens the store at `location`; see ``withStore(_:options:_:)-(StoreLocation,_,_)``.
    public static func withStore<Result: Sendable>(
        _ location: PostgresLocation,
        options: Options = Options(),
        _ body: (PostgresStore) async throws -> Result
    ) async throws -> Result {
        let logger = Logger(label: "plantguide.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        try await probe(location, options: options, logger: logger)
        let client = PostgresClient(configuration: try clientConfiguration(location, options: options), backgroundLogger: logger)
        let store = PostgresStore(
            location: location, client: client, logger: logger, leaseTimeout: options.leaseTimeout,
            defaultScope: options.defaultScope, careCache: HouseholdCache(),
            plantCache: HouseholdCache()
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            if options.migrate { try await store.migrate() }
            return try await body(store)
        }
    }

    // MARK: - Connecting

    /// One connection of its own, made and closed before the pool starts, within `options.connectTimeout`.
    private static func probe(_ location: PostgresLocation, options: Options, logger: Logger) async throws(StoreError) {
        var configuration: PostgresConnection.Configuration
        if let socketPath = location.socketPath {
            configuration = .init(
                unixSocketPath: socketPath, username: location.user, password: location.password, database: location.database
            )
        } else {
            configuration = .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: try connectionTLS(location)
            )
        }
        configuration.options.connectTimeout = .nanoseconds(Int64(options.connectTimeout.inNanoseconds))
        if let searchPath = options.searchPath {
            configuration.options.additionalStartupParameters = [("search_path", searchPath)]
        }
        let timeout = options.connectTimeout
        let settings = configuration
        let outcome: Result<Void, any Error> = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask {
                do {
                    let connection = try await PostgresConnection.connect(configuration: settings, id: 0, logger: logger)
                    do {
                        try await connection.query("SELECT 1", logger: logger)
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                    try? await connection.close()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(ConnectTimeout())
        }
        if case .failure(let error) = outcome {
            throw PostgresErrors.connection(error, location: location, timeout: timeout)
        }
    }

    private static func clientConfiguration(
        _ location: PostgresLocation, options: Options
    ) throws(StoreError) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath = location.socketPath {
            configuration = .init(
                unixSocketPath: socketPath, username: location.user, password: location.password, database: location.database
            )
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch location.sslMode {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            configuration = .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: tls
            )
        }
        configuration.options.connectTimeout = options.connectTimeout
        configuration.options.maximumConnections = max(1, options.maximumConnections)
        configuration.options.additionalStartupParameters = sessionParameters(options)
        return configuration
    }

    /// What every pooled connection sets at log-in. Row locks wait 15 s at most, and a transaction left open by a
    /// replica that stopped answering (its host gone, its connection not yet known dead) is ended after 60 s, so its
    /// locks do not hold the other replicas until TCP gives up hours later. JIT compilation is off: the planner turns it
    /// on for any statement it costs high (the care states of 10,000 plants), where compiling took 25 ms of a 30 ms run,
    /// every time, as no statement here runs long enough to repay it.
    static func sessionParameters(_ options: Options) -> [(String, String)] {
        var parameters = [("lock_timeout", "15s"), ("idle_in_transaction_session_timeout", "60s"), ("jit", "off")]
        if let searchPath = options.searchPath { parameters.append(("search_path", searchPath)) }
        return parameters
    }

    private static func connectionTLS(_ location: PostgresLocation) throws(StoreError) -> PostgresConnection.Configuration.TLS {
        do {
            switch location.sslMode {
            case .disable: return .disable
            case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw .connection(location: location.description, reason: "TLS could not be set up: \(error)")
        }
    }

    struct ConnectTimeout: Error {}

    // MARK: - Queries

    /// Runs one SQL statement without parameters (administration: schema changes, tests' own schemas), mapping errors as
    /// ``withConnection(_:_:)``.
    public func execute(_ sql: String, operation: String) async throws(StoreError) {
        try await withConnection(operation) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: self.logger)
        }
    }

    /// Runs `body` with a leased connection, mapping any PostgreSQL error to a ``StoreError`` for `operation`.
    ///
    /// Waiting for the connection is bounded by ``Options/leaseTimeout``: when the server is gone, postgres-nio's pool
    /// keeps trying to connect and would leave the caller (a web request) waiting for a minute.
    func withConnection<Result: Sendable>(
        _ operation: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws(StoreError) -> Result {
        do {
            return try await withLeaseDeadline(body)
        } catch {
            if error is LeaseTimeout {
                throw .connection(
                    location: location.description,
                    reason: "no connection to the database within \(leaseTimeout) (to \(operation)): the server is unreachable or busy"
                )
            }
            if let storeError = PostgresErrors.unwrap(error) as? StoreError { throw storeError }
            throw PostgresErrors.storeError(error, operation: operation, location: location)
        }
    }

    private struct LeaseTimeout: Error {}

    /// A non-Sendable value carried into a child task that ends before the value's scope does.
    private struct Carried<Value>: @unchecked Sendable {
        let value: Value
    }

    /// Runs `body` on a leased connection in a child task, racing a timer that fails the wait for the lease (not the
    /// body) after ``leaseTimeout``; cancelling the child withdraws its lease request from the pool.
    private func withLeaseDeadline<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let leased = LeaseFlag()
        let client = client, timeout = leaseTimeout
        return try await withoutActuallyEscaping(body) { body in
            let carried = Carried(value: body)
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        // Too late: the caller was told there is no connection, so nothing may be written now.
                        guard leased.take() else { throw LeaseTimeout() }
                        return try await carried.value(connection)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    guard leased.giveUp() else { return nil }
                    throw LeaseTimeout()
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let result = next { return result }
                }
                throw CancellationError()
            }
        }
    }
}

/// Whether the connection came before the deadline: decided once, by whichever of the lease and the timer comes first.
private final class LeaseFlag: @unchecked Sendable {
    private enum State { case waiting, leased, gaveUp }
    private let lock = NSLock()
    private var state = State.waiting

    /// The connection came: `true` unless the timer gave up first.
    func take() -> Bool {
        lock.withLock {
            guard state == .waiting else { return state == .leased }
            state = .leased
            return true
        }
    }

    /// The deadline passed: `true` unless the connection came first.
    func giveUp() -> Bool {
        lock.withLock {
            guard state == .waiting else { return state == .gaveUp }
            state = .gaveUp
            return true
        }
    }
}

extension Duration {
    var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
