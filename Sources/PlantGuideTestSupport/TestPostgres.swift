import Foundation
import PlantStore
import PlantStorePostgres

/// The test cluster `scripts/pg-cluster` starts (scripts/test does), read from `PLANTGUIDE_TEST_POSTGRES_URL`. Without
/// it the tests fail with the reason; they never skip, so a missing PostgreSQL cannot pass unnoticed.
public enum TestPostgres {
    /// Why the test cluster cannot be used.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The reason.
        public let description: String
    }

    /// The test cluster's location, or why there is none.
    public static func location() throws -> PostgresLocation {
        let value = ProcessInfo.processInfo.environment["PLANTGUIDE_TEST_POSTGRES_URL"] ?? ""
        if value.isEmpty {
            throw Unavailable(
                description: "PLANTGUIDE_TEST_POSTGRES_URL is not set: run `scripts/pg-cluster start DIR && source DIR/env` "
                    + "first (scripts/test does)"
            )
        }
        if value.hasPrefix("unavailable:") {
            throw Unavailable(description: "The test PostgreSQL cluster is not available: \(value.dropFirst("unavailable:".count))")
        }
        guard case .postgres(let location) = try StoreLocation(url: value) else {
            throw Unavailable(description: "PLANTGUIDE_TEST_POSTGRES_URL is not a postgres:// URL: \(StoreLocation.redacted(value))")
        }
        return location
    }

    /// Creates a login role with the password `Right-Pa55word` that must give it: `scripts/pg-cluster` asks members of
    /// `plantguide_password_users` for their password and lets every other role in without one. Tests running at once
    /// may both create the group; the loser's `unique_violation` is as good as `duplicate_object`.
    public static func makePasswordRole(_ role: String, on server: PostgresLocation) async throws {
        try await PostgresStore.withStore(server, options: administration) { admin in
            try await admin.execute(
                """
                DO $$ BEGIN
                    CREATE ROLE plantguide_password_users;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END $$
                """,
                operation: "create the password group"
            )
            try await admin.execute(
                "CREATE ROLE \(role) LOGIN PASSWORD 'Right-Pa55word' IN ROLE plantguide_password_users", operation: "create a role"
            )
        }
    }

    /// Options that open without migrating (for administration).
    public static var administration: PostgresStore.Options {
        var options = PostgresStore.Options()
        options.migrate = false
        options.maximumConnections = 2
        // A loaded test machine (parallel suites, builds) can take seconds to accept a local connection.
        options.connectTimeout = .seconds(20)
        return options
    }

    /// A random name such as `t_3f9a…`, for a schema or role of one test's own.
    public static func uniqueName(_ prefix: String) -> String {
        prefix + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Runs `body` with options whose search path is a fresh schema of its own, dropped afterwards (also on failure).
    public static func withSchema<Result: Sendable>(
        _ body: (PostgresLocation, PostgresStore.Options) async throws -> Result
    ) async throws -> Result {
        let location = try location()
        let schema = uniqueName("t_")
        try await PostgresStore.withStore(location, options: administration) { admin in
            try await admin.execute("CREATE SCHEMA \(schema)", operation: "create a test schema")
        }
        var options = PostgresStore.Options()
        options.searchPath = schema
        options.maximumConnections = 4
        do {
            let result = try await body(location, options)
            try await dropSchema(schema, at: location)
            return result
        } catch {
            try? await dropSchema(schema, at: location)
            throw error
        }
    }

    /// Runs `body` with the URL of a fresh database of its own on the test cluster (for processes that connect by URL,
    /// such as the `plantguide` binary), dropped afterwards, also on failure.
    public static func withDatabase<Result: Sendable>(_ body: (String) async throws -> Result) async throws -> Result {
        let server = try location()
        let name = uniqueName("db_")
        try await PostgresStore.withStore(server, options: administration) { admin in
            try await admin.execute("CREATE DATABASE \(name)", operation: "create a test database")
        }
        // The cluster's URL with the database swapped: the test cluster's has no password to hide.
        let clusterURL = ProcessInfo.processInfo.environment["PLANTGUIDE_TEST_POSTGRES_URL"] ?? ""
        let query = clusterURL.firstIndex(of: "?").map { String(clusterURL[$0...]) } ?? ""
        let url = "postgres://\(server.user)@\(server.host):\(server.port)/\(name)\(query)"
        do {
            let result = try await body(url)
            try await dropDatabase(name, at: server)
            return result
        } catch {
            try? await dropDatabase(name, at: server)
            throw error
        }
    }

    private static func dropDatabase(_ name: String, at server: PostgresLocation) async throws {
        try await PostgresStore.withStore(server, options: administration) { admin in
            try await admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", operation: "drop a test database")
        }
    }

    private static func dropSchema(_ schema: String, at location: PostgresLocation) async throws {
        try await PostgresStore.withStore(location, options: administration) { admin in
            try await admin.execute("DROP SCHEMA \(schema) CASCADE", operation: "drop a test schema")
        }
    }
}
