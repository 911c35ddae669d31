import PlantStore
import PostgresNIO

extension PostgresStore {
    /// Applies the migrations the database lacks, each in its own transaction that first takes the advisory lock
    /// 7215, so any number of processes may migrate the same database at once: one applies each migration, the others
    /// wait and then find it recorded. Returns the identifiers it applied (empty when the schema was current).
    ///
    /// - Throws: ``StoreError/newerDatabase(path:unknownMigrations:)`` when the database records migrations this
    ///   version does not know; ``StoreError/database(operation:reason:)`` when a statement fails (nothing of that
    ///   migration stays); ``StoreError/connection(location:reason:)`` when the server cannot be reached.
    @discardableResult
    public func migrate() async throws(StoreError) -> [String] {
        try await migrate(PostgresSchema.migrations)
    }

    /// Applies the migrations before `id` only, each in its transaction: a database as an older PlantGuide left it (for
    /// tests of upgrades).
    func migrate(before id: String) async throws(StoreError) -> [String] {
        try await migrate(Array(PostgresSchema.migrations.prefix { $0.id != id }))
    }

    private func migrate(_ migrations: [PostgresSchema.Migration]) async throws(StoreError) -> [String] {
        var applied: [String] = []
        for migration in migrations {
            let ran = try await withConnection("apply the PostgreSQL migration \(migration.id)") { connection in
                try await connection.withTransaction(logger: self.logger) { connection in
                    try await self.applyLocked(migration, on: connection)
                }
            }
            if ran { applied.append(migration.id) }
        }
        return applied
    }

    /// The identifiers of every migration this version knows, in order: a database recording all of them is current.
    public static var knownMigrations: [String] { PostgresSchema.migrations.map(\.id) }

    /// The identifiers of the migrations the database records, in the order they were applied; empty for a database
    /// that was never migrated.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        try await withConnection("read the applied migrations") { connection in
            try await Self.recordedMigrations(on: connection, logger: self.logger)
        }
    }

    /// Inside a transaction: takes the lock, makes the list, checks for a newer database, and applies `migration`
    /// unless it is recorded. Returns whether it applied it.
    private func applyLocked(_ migration: PostgresSchema.Migration, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.createMigrationTable), logger: logger)
        let recorded = try await Self.recordedMigrations(on: connection, logger: logger)
        let known = Set(PostgresSchema.migrations.map(\.id))
        let unknown = recorded.filter { !known.contains($0) }
        if !unknown.isEmpty {
            throw StoreError.newerDatabase(path: location.description, unknownMigrations: unknown)
        }
        if recorded.contains(migration.id) { return false }
        try await Self.requireVersion(for: migration, on: connection, logger: logger)
        for statement in migration.statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await connection.query("INSERT INTO schema_migration (id) VALUES (\(migration.id))", logger: logger)
        return true
    }

    /// The oldest PostgreSQL that runs the schema: pg6 keeps an identification's plant in its household with a foreign
    /// key that clears only the plant (`ON DELETE SET NULL (plantId)`), which PostgreSQL 15 brought.
    static let minimumServerVersion = 150_000

    /// Refuses, before changing anything, to apply a migration on a server too old for it, naming both versions.
    private static func requireVersion(
        for migration: PostgresSchema.Migration, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let rows = try await connection.query("SELECT current_setting('server_version_num')::int, current_setting('server_version')", logger: logger)
        for try await (number, version) in rows.decode((Int, String).self) where number < minimumServerVersion {
            throw StoreError.database(
                operation: "apply the PostgreSQL migration \(migration.id)",
                reason: "PlantGuide needs PostgreSQL 15 or newer; this server runs \(version). Upgrade the server (Debian 12 ships 15)."
            )
        }
    }

    private static func recordedMigrations(on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let exists = try await connection.query("SELECT to_regclass('schema_migration') IS NOT NULL", logger: logger)
        var hasTable = false
        for try await value in exists.decode(Bool.self) { hasTable = value }
        guard hasTable else { return [] }
        let rows = try await connection.query("SELECT id FROM schema_migration ORDER BY applied_at, id", logger: logger)
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }
}
