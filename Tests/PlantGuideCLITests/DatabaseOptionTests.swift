import Foundation
import PlantGuideTestSupport
import Testing

/// `--database` and `PLANTGUIDE_DATABASE_URL` through the real binary: `user` works on PostgreSQL (the test cluster),
/// and a command that still keeps its records in the data directory refuses instead of writing where the web app does
/// not read.
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

    @Test func aCommandThatKeepsItsRecordsInTheDataDirectoryRefusesAnotherDatabase() throws {
        var cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        cli.environment["PLANTGUIDE_DATABASE_URL"] = "postgres://plantguide:s3cret@db.example.org/plantguide"
        let refused = try cli.run(["collection", "list"])
        #expect(refused.status != 0)
        #expect(!refused.killedBySignal)
        #expect(refused.stderr.contains("keeps its records in the data directory's SQLite database"), "\(refused.stderr)")
        #expect(refused.stderr.contains("postgres://plantguide:***@db.example.org"), "the password is hidden: \(refused.stderr)")
        #expect(!refused.stderr.contains("s3cret"))
        // The data directory's own file named explicitly is fine, and a malformed URL is a clear error.
        cli.environment["PLANTGUIDE_DATABASE_URL"] = "sqlite:" + cli.home.appendingPathComponent("collection.sqlite").path
        #expect(try cli.run(["collection", "list"]).status == 0)
        cli.environment["PLANTGUIDE_DATABASE_URL"] = "mysql://nobody@example.org/x"
        let malformed = try cli.run(["user", "list"])
        #expect(malformed.status != 0)
        #expect(malformed.stderr.contains("PLANTGUIDE_DATABASE_URL"), "\(malformed.stderr)")
        #expect(malformed.stderr.contains("neither sqlite:PATH nor postgres://"), "\(malformed.stderr)")
    }
}
