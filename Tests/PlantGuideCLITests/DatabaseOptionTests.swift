import Foundation
import PlantGuideTestSupport
import Testing

/// `--database` and `PLANTGUIDE_DATABASE_URL` through the real binary: `user` works on PostgreSQL (the test cluster).
/// The other commands: `PostgresCommandTests`.
@Suite struct DatabaseOptionTests {
    @Test func accountsAreKeptInThePostgreSQLDatabaseNamed() async throws {
        try await TestPostgres.withDatabase { url in
            var cli = try CommandLineRunner()
            defer { cli.cleanUp() }
            let added = try cli.run(["user", "add", "alice", "--database", url], input: Data("correct horse battery\n".utf8))
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.contains("Added alice as owner"))
            // The same database through the environment variable: the account is there, and nothing went into SQLite.
            cli.environment["PLANTGUIDE_DATABASE_URL"] = url
            let listed = try cli.run(["user", "list", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect((try listed.json() as? [[String: Any]])?.map { $0["name"] as? String } == ["alice"])
            #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("collection.sqlite").path))
            // Without it, the data directory's own (empty) SQLite database is used.
            cli.environment["PLANTGUIDE_DATABASE_URL"] = nil
            #expect(try cli.run(["user", "list"]).stdout.contains("No accounts yet"))
        }
    }
}
