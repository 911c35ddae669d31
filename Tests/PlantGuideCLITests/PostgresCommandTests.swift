import Foundation
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing

/// The collection commands on PostgreSQL (the test cluster), through the real binary: `--database` or
/// `PLANTGUIDE_DATABASE_URL` chooses the database for every command that uses the collection, as for `serve`, and
/// nothing goes into the data directory's SQLite file.
@Suite struct PostgresCommandTests {
    @Test func collectionCareAndHouseholdsLiveInThePostgreSQLDatabaseNamed() async throws {
        try await TestPostgres.withDatabase { url in
            var cli = try collectionRunner(now: "2026-06-01T09:00:00Z")
            defer { cli.cleanUp() }
            let sqlite = cli.home.appendingPathComponent("collection.sqlite")

            // --database anywhere on the line, then the environment variable.
            let fern = try cli.jsonObject(["--database", url, "collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
            _ = try cli.jsonObject(["collection", "add", "Moth orchid", "--nickname", "Orla", "--json", "--database=\(url)"])
            cli.environment["PLANTGUIDE_DATABASE_URL"] = url
            let fernId = try #require(fern["id"] as? Int)
            #expect(try cli.jsonArray(["collection", "list", "--json"]).compactMap { $0["name"] as? String }
                == ["Boston fern", "Moth orchid"])

            // Care: the fern (every 4 days in summer) is overdue ten days later; watering it is logged in PostgreSQL.
            cli.environment["PLANTGUIDE_NOW"] = "2026-06-11T09:00:00Z"
            let due = try cli.jsonObject(["care", "due", "--days", "2", "--json"])
            let rooms = try #require(due["rooms"] as? [[String: Any]])
            #expect(rooms.first?["room"] as? String == "Bathroom")
            let water = try #require((rooms.first?["tasks"] as? [[String: Any]])?.first { $0["task"] as? String == "water" })
            #expect(water["overdueDays"] as? Int == 6)
            let done = try cli.jsonObject(["care", "done", "\(fernId)", "water", "--note", "rain water", "--json"])
            #expect((done["next"] as? [String: Any])?["dueOn"] as? String == "2026-06-15")
            let shown = try cli.jsonObject(["collection", "show", "\(fernId)", "--json"])
            let log = try #require(shown["events"] as? [[String: Any]], "\(shown.keys.sorted())")
            #expect(log.first?["note"] as? String == "rain water")
            let schedule = try cli.jsonArray(["care", "schedule", "\(fernId)", "--task", "water", "--every", "2", "--json"])
            #expect(schedule.first { $0["task"] as? String == "water" }?["dueOn"] as? String == "2026-06-13")

            // Photos: the record in PostgreSQL, the file in the data directory; the calendar reads PostgreSQL too.
            let picture = cli.home.appendingPathComponent("fern.png")
            try fakePhoto(seed: 4).write(to: picture)
            let added = try cli.jsonObject(["collection", "photo", "add", "\(fernId)", picture.path, "--json"])
            let stored = try #require(added["path"] as? String)
            #expect(FileManager.default.fileExists(atPath: stored))
            #expect(try cli.jsonArray(["collection", "photo", "list", "\(fernId)", "--json"]).count == 1)
            #expect(try cli.run(["care", "ics"]).stdout.contains("Boston fern"))

            // Households: a household made by `user add` on PostgreSQL has its own collection there.
            let dave = try cli.run(["user", "add", "dave", "--household", "Joneses"], input: Data("a long passphrase\n".utf8))
            #expect(dave.status == 0, "\(dave.stderr)")
            _ = try cli.jsonObject(["collection", "add", "Snake plant", "--household", "Joneses", "--json"])
            #expect(try cli.jsonArray(["household", "list", "--json"]).map { $0["plants"] as? Int } == [2, 1])
            // `user` takes --database too, also before its name.
            let users = try cli.run(["--database", url, "user", "list", "--json"])
            #expect((try users.json() as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["dave"], "\(users.stderr)")
            #expect(try cli.jsonArray(["collection", "list", "--household", "Joneses", "--json"]).compactMap { $0["name"] as? String }
                == ["Snake plant"])
            #expect(try cli.jsonArray(["collection", "list", "--json"]).count == 2)
            let foreign = try cli.run(["collection", "show", "\(fernId)", "--household", "Joneses"])
            #expect(foreign.status != 0 && !foreign.killedBySignal)
            #expect(foreign.stderr.contains("No plant with id \(fernId)"), "\(foreign.stderr)")

            // Export from PostgreSQL, import into the data directory's SQLite file: the same plants and care log.
            let archive = cli.home.appendingPathComponent("home.zip")
            let exported = try cli.jsonObject(["export", archive.path, "--json"])
            #expect(exported["plants"] as? Int == 2)
            #expect(!FileManager.default.fileExists(atPath: sqlite.path), "nothing went into SQLite while PostgreSQL was chosen")
            cli.environment["PLANTGUIDE_DATABASE_URL"] = nil
            let imported = try cli.jsonObject(["import", archive.path, "--json"])
            #expect(imported["plantsAdded"] as? Int == 2)
            #expect(imported["eventsAdded"] as? Int == 1)
            #expect(FileManager.default.fileExists(atPath: sqlite.path))

            // A backup copies an SQLite file: on PostgreSQL it says to use pg_dump, and writes nothing.
            cli.environment["PLANTGUIDE_DATABASE_URL"] = url
            let backupFile = cli.home.appendingPathComponent("backup.sqlite")
            let backup = try cli.run(["backup", backupFile.path])
            #expect(backup.status != 0 && !backup.killedBySignal)
            #expect(backup.stderr.contains("pg_dump"), "\(backup.stderr)")
            #expect(!FileManager.default.fileExists(atPath: backupFile.path))
        }
    }

    @Test func identificationsQuotaCacheAndStatisticsAreKeptInPostgreSQL() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        try await TestPostgres.withDatabase { url in
            var cli = try CommandLineRunner(environment: [
                "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key",
                "PLANTGUIDE_DATABASE_URL": url,
            ])
            defer { cli.cleanUp() }
            let photo = cli.home.appendingPathComponent("leaf.png")
            try PNGFixture.gradient(width: 96, height: 64, seed: 7).write(to: photo)

            let first = try cli.run(["identify", photo.path, "--strategy", "api", "--save", "--create-plant", "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            let answer = try #require(try first.json() as? [String: Any], "\(first.stdout)")
            #expect(answer["source"] as? String == "plantNetAPI")
            #expect((answer["saved"] as? [String: Any])?["plantId"] as? Int != nil, "\(answer["saved"] ?? "nothing saved")")
            // The second time the answer comes from the cache PostgreSQL keeps: one request to Pl@ntNet in all.
            let second = try cli.run(["identify", photo.path, "--strategy", "api", "--json"])
            #expect((try second.json() as? [String: Any])?["source"] as? String == "cache", "\(second.stderr)")
            #expect(stub.requestCount == 1)
            let quota = try #require(try cli.run(["quota", "--json"]).json() as? [String: Any])
            #expect(quota["remaining"] as? Int == 499, "\(quota)")
            let cache = try #require(try cli.run(["cache", "stats", "--json"]).json() as? [String: Any])
            #expect(cache["entries"] as? Int == 1)
            let stats = try #require(try cli.run(["stats", "--json"]).json() as? [String: Any])
            #expect(stats["identifications"] as? Int == 2, "\(stats)")
            let saved = try #require(try cli.run(["collection", "list", "--json"]).json() as? [[String: Any]])
            #expect(saved.compactMap { $0["species"] as? String } == ["Monstera deliciosa"])
            #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("collection.sqlite").path))

            // The same data directory without the variable: its own SQLite database, empty.
            cli.environment["PLANTGUIDE_DATABASE_URL"] = nil
            let local = try #require(try cli.run(["quota", "--json"]).json() as? [String: Any])
            #expect(local["level"] as? String == "unknown", "\(local)")
        }
    }

    @Test func aDatabaseThatCannotBeUsedIsAClearErrorWithThePasswordHidden() throws {
        var cli = try CommandLineRunner()
        defer { cli.cleanUp() }
        // Nothing listens on port 1: refused at once, naming the database without its password.
        cli.environment["PLANTGUIDE_DATABASE_URL"] = "postgres://plantguide:s3cret@127.0.0.1:1/plantguide"
        let refused = try cli.run(["collection", "list"])
        #expect(refused.status != 0)
        #expect(!refused.killedBySignal)
        #expect(refused.stderr.contains("postgres://plantguide:***@127.0.0.1:1/plantguide"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("s3cret"))
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("collection.sqlite").path))
        // --database on a command without a collection, and a malformed URL, are refused saying why.
        cli.environment["PLANTGUIDE_DATABASE_URL"] = nil
        let search = try cli.run(["search", "monstera", "--database", "sqlite:/tmp/x.sqlite"])
        #expect(search.status != 0)
        #expect(search.stderr.contains("does not use the collection"), "\(search.stderr)")
        let missing = try cli.run(["collection", "list", "--database"])
        #expect(missing.status != 0 && missing.stderr.contains("--database needs a value"), "\(missing.stderr)")
        let malformed = try cli.run(["collection", "list", "--database", "mysql://nobody@example.org/x"])
        #expect(malformed.status != 0)
        #expect(malformed.stderr.contains("--database") && malformed.stderr.contains("neither sqlite:PATH nor postgres://"),
                "\(malformed.stderr)")
        // An SQLite file named by the URL is used instead of the data directory's.
        let elsewhere = cli.home.appendingPathComponent("elsewhere.sqlite")
        _ = try cli.jsonObject(["collection", "add", "Boston fern", "--json", "--database", "sqlite:" + elsewhere.path])
        #expect(FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("collection.sqlite").path))
        #expect(try cli.jsonArray(["collection", "list", "--json"]).isEmpty)
        cli.environment["PLANTGUIDE_DATABASE_URL"] = "sqlite:" + elsewhere.path
        #expect(try cli.jsonArray(["collection", "list", "--json"]).count == 1)
    }

    @Test func theCommandLineSetsUpANewDatabaseButLeavesUpgradingOneToServe() async throws {
        try await TestPostgres.withDatabase { url in
            var cli = try collectionRunner()
            defer { cli.cleanUp() }
            cli.environment["PLANTGUIDE_DATABASE_URL"] = url
            _ = try cli.jsonObject(["collection", "add", "Boston fern", "--json"])  // a new database: set up
            // The same database as an older version left it: refused, saying what upgrades it, and nothing changed.
            let last = try #require(PostgresStore.knownMigrations.last)
            try await PostgresStore.withStore(try StoreLocation(url: url), options: TestPostgres.administration) { store in
                try await store.execute("DELETE FROM schema_migration WHERE id = '\(last)'", operation: "forget a migration")
            }
            let older = try cli.run(["collection", "list"])
            #expect(older.status != 0 && !older.killedBySignal)
            #expect(older.stderr.contains("schema of an older PlantGuide") && older.stderr.contains(last), "\(older.stderr)")
            #expect(older.stderr.contains("plantguide serve"))
            // And one a newer version migrated: refused too.
            try await PostgresStore.withStore(try StoreLocation(url: url), options: TestPostgres.administration) { store in
                try await store.execute(
                    "INSERT INTO schema_migration (id) VALUES ('\(last)'), ('pg99-from-the-future')", operation: "add migrations"
                )
            }
            let newer = try cli.run(["collection", "list"])
            #expect(newer.status != 0 && newer.stderr.contains("pg99-from-the-future"), "\(newer.stderr)")
        }
    }

    @Test func anIdentificationIsAnsweredWhenItsDatabaseCannotBeReached() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try CommandLineRunner(environment: [
            "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key",
            "PLANTGUIDE_DATABASE_URL": "postgres://plantguide:s3cret@127.0.0.1:1/plantguide",
        ])
        defer { cli.cleanUp() }
        let photo = cli.home.appendingPathComponent("leaf.png")
        try PNGFixture.gradient(width: 96, height: 64, seed: 9).write(to: photo)
        let answered = try cli.run(["identify", photo.path, "--strategy", "api", "--json"])
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect((try answered.json() as? [String: Any])?["source"] as? String == "plantNetAPI")
        #expect(answered.stderr.contains("cannot be reached") && answered.stderr.contains("answering without it"), "\(answered.stderr)")
        #expect(!answered.stderr.contains("s3cret"))
        // So is a diagnosis: the disease answer does not need the collection either.
        let diagnosed = try cli.run(["diagnose", photo.path, "--organ", "leaf"])
        #expect(diagnosed.status == 0, "\(diagnosed.stderr)")
        #expect(diagnosed.stdout.contains("Grey mould (BOTRCI)"), "\(diagnosed.stdout)")
        #expect(diagnosed.stderr.contains("answering without it"), "\(diagnosed.stderr)")
        // Saving needs the database: refused, saying why.
        let saving = try cli.run(["identify", photo.path, "--strategy", "api", "--save", "--create-plant"])
        #expect(saving.status != 0 && !saving.killedBySignal)
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("collection.sqlite").path))
    }
}
