import Foundation
import PlantGuideLive
import PlantGuideServer
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing

/// `plantguide migrate` through the real binary, into fresh databases of the test cluster: the collection and its
/// accounts arrive whole and verified, a second run is refused unless forced, and the usual mistakes (no server, a
/// wrong password, an SQLite target, no collection) are clear errors that never show a password.
@Suite struct MigrateCommandTests {
    private static let password = "correct horse battery"

    @Test func theCollectionMovesToPostgreSQLVerifiedAndASecondRunNeedsForce() async throws {
        var cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        #expect(try cli.run(["user", "add", "alice"], input: Data("\(Self.password)\n".utf8)).status == 0)
        #expect(try cli.run(["collection", "add", "Boston fern", "--room", "Bathroom"]).status == 0)
        #expect(try cli.run(["care", "done", "1", "water", "--date", "2026-11-20"]).status == 0)
        try await TestPostgres.withDatabase { url in
            // PLANTGUIDE_DATABASE_URL naming the target (as it will once the servers move) does not stop migrate.
            cli.environment["PLANTGUIDE_DATABASE_URL"] = url
            let migrated = try cli.run(["migrate", "--to", url])
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(migrated.stdout.contains("Verified: every table holds the same rows, and the two exports are equal"), "\(migrated.stdout)")
            let lines = migrated.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(lines.contains(["plant", "1"]))
            #expect(lines.contains(["appUser", "1"]))
            #expect(lines.contains(["careEvent", "1"]))
            #expect(lines.contains(["careLastDone", "1"]))
            #expect(migrated.stdout.contains("plantguide serve --database URL"))

            // The account logs in on PostgreSQL with the same password.
            let users = try cli.run(["user", "list", "--json"])
            #expect((try users.json() as? [[String: Any]])?.map { $0["name"] as? String } == ["alice"])
            let hash = try await PostgresStore.withStore(try StoreLocation(url: url)) { store in
                try await store.user(named: "alice")?.passwordHash
            }
            #expect(PasswordHash(encoded: try #require(hash))?.verify(Self.password) == true)

            let again = try cli.run(["migrate", "--to", url])
            #expect(again.status != 0 && !again.killedBySignal)
            #expect(again.stderr.contains("already holds a collection (appUser: 1"), "\(again.stderr)")
            #expect(again.stderr.contains("add --force"), "\(again.stderr)")

            let forced = try cli.run(["migrate", "--to", url, "--force", "--json"])
            #expect(forced.status == 0, "\(forced.stderr)")
            let report = try #require(try forced.json() as? [String: Any])
            #expect(report["verified"] as? Bool == true)
            #expect(report["exportsEqual"] as? Bool == true)
            let tables = try #require(report["tables"] as? [[String: Any]])
            #expect(tables.count == 29)
            #expect(tables.first { $0["table"] as? String == "plant" }?["targetRows"] as? Int == 1)

            // A database a newer PlantGuide migrated is refused, even with --force.
            try await PostgresStore.withStore(try StoreLocation(url: url)) { store in
                try await store.execute("INSERT INTO schema_migration (id) VALUES ('pg99')", operation: "pretend to be newer")
            }
            let newer = try cli.run(["migrate", "--to", url, "--force"])
            #expect(newer.status != 0)
            #expect(newer.stderr.contains("was written by a newer PlantGuide (schema pg99)"), "\(newer.stderr)")
        }
    }

    @Test func mistakesAreClearErrorsWithoutThePassword() async throws {
        let cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        let missing = try cli.run(["migrate", "--to", "postgres://plantguide@127.0.0.1/plantguide"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("There is no collection at"), "\(missing.stderr)")

        #expect(try cli.run(["collection", "add", "Boston fern"]).status == 0)
        let notPostgres = try cli.run(["migrate", "--to", "sqlite:/tmp/elsewhere.sqlite"])
        #expect(notPostgres.status != 0)
        #expect(notPostgres.stderr.contains("migrate copies into PostgreSQL"), "\(notPostgres.stderr)")

        let unreachable = try cli.run(["migrate", "--to", "postgres://plantguide:s3cret@127.0.0.1:1/plantguide"])
        #expect(unreachable.status != 0 && !unreachable.killedBySignal)
        #expect(unreachable.stderr.contains("127.0.0.1:1"), "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("plantguide:***@"), "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("s3cret"))

        let server = try TestPostgres.location()
        let role = TestPostgres.uniqueName("pw_")
        try await TestPostgres.makePasswordRole(role, on: server)
        let wrong = try cli.run(["migrate", "--to", "postgres://\(role):Wr0ng-Secret@\(server.host):\(server.port)/\(server.database)"])
        try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
            try await admin.execute("DROP ROLE \(role)", operation: "drop a role")
        }
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("refused the log-in as \"\(role)\""), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("Wr0ng-Secret"))

        let help = try cli.run(["migrate", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("plantguide migrate --to postgres://"))
        #expect(help.contains("they stay in the data directory"), "\(help)")
        #expect(help.contains("plantguide serve --database URL"))
    }
}
