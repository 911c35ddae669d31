import Foundation
import GRDB
import PlantGuideCore
import PlantGuideTestSupport
import PostgresNIO
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite
@testable import PlantStorePostgres

/// Migrations, constraints and errors of the PostgreSQL store, against the real test cluster, each test in a schema of
/// its own. The SQLite schema (migrated in memory) is the reference: the same rows must be kept or refused on both.
@Suite struct PostgresStoreTests {
    /// The tables pg1 makes, besides `schema_migration`.
    static let pg1Tables: Set<String> = [
        "plant", "photo", "plantphoto", "identification", "careprofile", "careevent", "careschedule", "carelastdone",
        "learnedspecies", "loginsession", "recheck", "recheckphoto", "speciessuggestion", "identificationrun",
        "photoembedding",
    ]

    /// The tables pg2, pg3, pg4, pg7, pg8, pg9 and pg13 add: the Pl@ntNet state, households and accounts, the server's
    /// shared state, the last days per plant, the change stamps, the log of changed plants and the reminders.
    static let pg2Tables: Set<String> = [
        "plantnetquota", "plantnetcacheentry", "plantnetcachecounter", "household", "appuser", "loginfailure",
        "serversecret", "householdsetting", "recentupload", "carelastdays", "changestamp", "plantchange",
        "reminderchannel", "reminderdigest", "careassignment", "healthrecord", "healthrecordphoto",
    ]

    /// Every migration this version knows.
    static let allMigrations = ["pg1", "pg2", "pg3", "pg4", "pg5", "pg6", "pg7", "pg8", "pg9", "pg10", "pg11", "pg12", "pg13", "pg14", "pg15", "pg16", "pg17", "pg18"]

    @Test func migratingTwiceAppliesEachMigrationOnce() async throws {
        try await TestPostgres.withSchema { location, options in
            var manual = options
            manual.migrate = false
            try await PostgresStore.withStore(location, options: manual) { store async throws in
                #expect(try await store.appliedMigrations() == [])
                #expect(try await store.migrate() == Self.allMigrations)
                #expect(try await store.migrate() == [])
                #expect(try await store.appliedMigrations() == Self.allMigrations)
            }
            // Opening migrates, and finds nothing left to do.
            try await PostgresStore.withStore(location, options: options) { store async throws in
                #expect(try await store.appliedMigrations() == Self.allMigrations)
                #expect(try await tables(store) == Self.pg1Tables.union(Self.pg2Tables).union(["schema_migration"]))
            }
        }
    }

    @Test func concurrentMigratorsApplyEachMigrationOnce() async throws {
        try await TestPostgres.withSchema { location, options in
            let lists = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await PostgresStore.withStore(location, options: options) { store async throws in
                            try await store.appliedMigrations()
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(lists == Array(repeating: Self.allMigrations, count: 4))
            try await PostgresStore.withStore(location, options: options) { store async throws in
                #expect(try await tables(store) == Self.pg1Tables.union(Self.pg2Tables).union(["schema_migration"]))
                let count = try await store.withConnection("count") { connection in
                    let rows = try await connection.query("SELECT count(*) FROM schema_migration", logger: store.logger)
                    var count: Int64 = -1
                    for try await value in rows.decode(Int64.self) { count = value }
                    return count
                }
                #expect(count == Int64(Self.allMigrations.count))
            }
        }
    }

    /// pg12: a profile copied from a guide row whose toxicity the ASPCA facts changed takes the new value; others stay.
    @Test func pg12GivesCopiedProfilesTheCheckedToxicity() async throws {
        try await TestPostgres.withSchema { location, options in
            // pg9 takes a lock that only a transaction may (the store's migrate runs each in one), so the whole schema is
            // made and pg12's statements run again over rows as they were before it.
            try await PostgresStore.withStore(location, options: options) { store async throws in
                func plant(_ id: Int, _ name: String, basis: String, toxic: Bool) -> [String] {
                    [
                        "INSERT INTO plant (id, uuid, name, createdAt, updatedAt, householdId) VALUES (\(id), '\(Self.uuid(id))', '\(name)', '\(Self.t0)', '\(Self.t0)', 1)",
                        "INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature, maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis) VALUES (\(id), 'medium', 7, 14, 'medium', 10, 30, \(toxic), \(toxic), 'ASPCA toxic and non-toxic plant list', '\(basis)')",
                    ]
                }
                for row in plant(7, "Air plant", basis: "genus Tillandsia", toxic: false)
                    + plant(8, "Monstera", basis: "genus Monstera", toxic: true) {
                    try await store.execute(row, operation: "add a row before pg12")
                }
                for statement in PostgresSchema.pg12 { try await store.execute(statement, operation: "apply pg12") }
                #expect(try await count(store, "careProfile WHERE plantId = 7 AND toxicToCats AND toxicToDogs AND toxicitySource LIKE 'not verified: no ASPCA entry%'") == 1)
                #expect(try await count(store, "careProfile WHERE plantId = 8 AND toxicitySource = 'ASPCA toxic and non-toxic plant list'") == 1)
            }
        }
    }

    /// A collection from before households (pg5) moves whole into household 1: plants, identifications (filed and
    /// unsaved), care events and the identification log.
    @Test func pg6PutsEveryExistingRowIntoHouseholdOne() async throws {
        try await TestPostgres.withSchema { location, options in
            var manual = options
            manual.migrate = false
            try await PostgresStore.withStore(location, options: manual) { store async throws in
                try await Self.applyMigrations(before: "pg6", on: store)
                let old = [
                    "INSERT INTO plant (id, uuid, name, createdAt, updatedAt) VALUES (7, '\(Self.uuid(1))', 'Fern', '\(Self.t0)', '\(Self.t0)')",
                    "INSERT INTO identification (uuid, plantId, source, predictions, uncertain, identifiedAt) VALUES ('\(Self.uuid(2))', 7, 'onDevice', '[]', FALSE, '\(Self.t0)')",
                    "INSERT INTO identification (uuid, source, predictions, uncertain, identifiedAt) VALUES ('\(Self.uuid(3))', 'onDevice', '[]', FALSE, '\(Self.t0)')",
                    careEvent(4, plant: 7, task: "water", day: "2026-01-05"),
                    "INSERT INTO identificationRun (ranAt, strategy, source, cacheHit, apiCalled, timings) VALUES ('\(Self.t0)', 'hybrid', 'cache', TRUE, FALSE, '{}')",
                    "INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature, maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis) VALUES (7, 'medium', 5, 9, 'high', 18, 29, FALSE, FALSE, 'Not verified for this group; treated as toxic to be safe', 'genus Stromanthe')",
                ]
                for row in old { try await store.execute(row, operation: "add a row before households") }
                #expect(try await store.migrate() == ["pg6", "pg7", "pg8", "pg9", "pg10", "pg11", "pg12", "pg13", "pg14", "pg15", "pg16", "pg17", "pg18"])
                // pg10: a profile that said "not toxic" on an unchecked claim says toxic (in any letter case).
                #expect(try await count(store, "careProfile WHERE toxicToCats AND toxicToDogs") == 1)
                for table in ["plant", "identification", "identificationRun"] {
                    #expect(try await count(store, table) == 1 + (table == "identification" ? 1 : 0))
                    #expect(try await count(store, "\(table) WHERE householdId = 1") == 1 + (table == "identification" ? 1 : 0))
                }
                // Read through the store in household 1, and nothing in another household.
                #expect(try await store.plants(room: nil).map(\.id) == [7])
                #expect(try await store.identifications(plantId: nil).count == 2)
                #expect(try await store.identifications(plantId: 7).count == 1)
                #expect(try await store.events(plantId: nil).map(\.recordedBy) == [nil])
                #expect(try await store.identificationRuns(last: 5).count == 1)
                let other = store.scoped(to: HouseholdScope(household: 2))
                #expect(try await other.plants(room: nil).isEmpty)
                #expect(try await other.identifications(plantId: nil).isEmpty)
                #expect(try await other.identificationRuns(last: 5).isEmpty)
            }
        }
    }

    /// A database a newer PlantGuide migrated is refused.
    @Test func unknownMigrationsAreRefused() async throws {
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store async throws in
                try await store.execute("INSERT INTO schema_migration (id) VALUES ('pg999')", operation: "pretend")
            }
            await #expect {
                try await PostgresStore.withStore(location, options: options) { _ in }
            } throws: { error in
                guard case .newerDatabase(_, let unknown) = error as? StoreError else { return false }
                return unknown == ["pg999"]
            }
        }
    }

    // MARK: - Constraints

    /// Rows every bad row below is checked against: a second household, two plants (one in each), two photos, a cover,
    /// an identification, an open suggestion. Written so SQLite and PostgreSQL both read them.
    static let baseRows = [
        "INSERT INTO household (id, name, createdAt) VALUES (2, 'Joneses', '\(t0)')",
        "INSERT INTO plant (id, householdId, uuid, name, createdAt, updatedAt) VALUES (1, 1, '\(uuid(1))', 'Fern', '\(t0)', '\(t0)')",
        "INSERT INTO plant (id, householdId, uuid, name, createdAt, updatedAt) VALUES (2, 2, '\(uuid(2))', 'Ficus', '\(t0)', '\(t0)')",
        "INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt) VALUES ('\(hex("a"))', '\(hex("a"))', 'image/jpeg', 10, '\(t0)')",
        "INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt) VALUES ('\(hex("b"))', '\(hex("b"))', 'image/png', 10, '\(t0)')",
        "INSERT INTO plantPhoto (plantId, photoSHA256, addedAt, isCover) VALUES (1, '\(hex("a"))', '\(t0)', TRUE)",
        "INSERT INTO identification (id, householdId, uuid, plantId, photoSHA256, source, predictions, uncertain, identifiedAt) VALUES (1, 1, '\(uuid(3))', 1, '\(hex("a"))', 'onDevice', '[]', FALSE, '\(t0)')",
        "INSERT INTO speciesSuggestion (plantId, kind, identificationId, suggestedSpecies, confidence, createdAt) VALUES (1, 'recheck', 1, 'Ficus lyrata', 0.5, '\(t0)')",
    ]

    struct BadRow: Sendable, CustomTestStringConvertible {
        /// What the rule is, for the test's name.
        let rule: String
        /// The statement; `sqlite` is SQLite's spelling when it differs.
        let postgres: String
        var sqlite: String?
        /// What PostgreSQL's refusal must name (usually the constraint).
        let refusal: String
        var testDescription: String { rule }
    }

    static let badRows: [BadRow] = [
        BadRow(rule: "plant name not blank", postgres: plant(name: "'   '"), refusal: "CHECK constraint plant_name_check"),
        BadRow(rule: "plant name NOT NULL", postgres: plant(name: "NULL"), refusal: "NOT NULL constraint on plant.name"),
        BadRow(rule: "plant uuid 36 characters", postgres: plant(uuid: "'short'"), refusal: "plant_uuid_check"),
        BadRow(rule: "plant uuid UNIQUE", postgres: plant(uuid: "'\(uuid(1))'"), refusal: "unique constraint plant_uuid_key"),
        BadRow(rule: "plant updated after created", postgres: plant(updatedAt: "'2025-01-01 00:00:00'"), refusal: "constraint plant_check violated"),
        BadRow(
            rule: "plant confirmed by needs a species", postgres: plant(extra: ("confirmedBy", "'name'")), refusal: "constraint plant_check1 violated"
        ),
        BadRow(rule: "plant acquired on a real day", postgres: plant(extra: ("acquiredOn", "'2026-02-30'")), refusal: "SQLSTATE 22008"),
        BadRow(
            rule: "photo hash lower-case hex",
            postgres: "INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt) VALUES ('\(hex("A"))', '\(hex("a"))', 'image/jpeg', 1, '\(t0)')",
            refusal: "photo_sha256_check"
        ),
        BadRow(
            rule: "photo media type known",
            postgres: "INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt) VALUES ('\(hex("c"))', '\(hex("c"))', 'image/gif', 1, '\(t0)')",
            refusal: "photo_mediatype_check"
        ),
        BadRow(
            rule: "photo byte count positive",
            postgres: "INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt) VALUES ('\(hex("c"))', '\(hex("c"))', 'image/jpeg', 0, '\(t0)')",
            refusal: "photo_bytecount_check"
        ),
        BadRow(
            rule: "plant photo of a real plant",
            postgres: "INSERT INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (99, '\(hex("a"))', '\(t0)')",
            refusal: "foreign key constraint plantphoto_plantid_fkey"
        ),
        BadRow(
            rule: "one cover per plant",
            postgres: "INSERT INTO plantPhoto (plantId, photoSHA256, addedAt, isCover) VALUES (1, '\(hex("b"))', '\(t0)', TRUE)",
            refusal: "plantphoto_cover"
        ),
        BadRow(
            rule: "a photo in use is not deleted", postgres: "DELETE FROM photo WHERE sha256 = '\(hex("a"))'",
            refusal: "plantphoto_photosha256_fkey"
        ),
        BadRow(rule: "predictions a JSON array", postgres: identification(predictions: "'{}'"), refusal: "identification_predictions_check"),
        BadRow(rule: "predictions valid JSON", postgres: identification(predictions: "'[1,'"), refusal: "identification_predictions_check"),
        BadRow(
            rule: "identification source known", postgres: identification(source: "'guess'"), refusal: "identification_source_check"
        ),
        BadRow(
            rule: "care profile min below max",
            postgres: """
                INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature, maxTemperature,
                    toxicToCats, toxicToDogs, toxicitySource, basis) VALUES (2, 'low', 7, 14, 'low', 20, 10, FALSE, FALSE, 'ASPCA', 'x')
                """,
            refusal: "careprofile_check"
        ),
        BadRow(
            rule: "care task known",
            postgres: "INSERT INTO careEvent (uuid, plantId, task, day, createdAt) VALUES ('\(uuid(9))', 1, 'sing', '2026-01-05', '\(t0)')",
            refusal: "careevent_task_check"
        ),
        BadRow(
            rule: "care schedule days in range",
            postgres: "INSERT INTO careSchedule (plantId, task, growingDays) VALUES (1, 'water', 0)",
            refusal: "careschedule_growingdays_check"
        ),
        BadRow(
            rule: "species key lower case",
            postgres: "INSERT INTO learnedSpecies (speciesKey, language, binomial, commonNames, learnedAt) VALUES ('Ficus', 'en', 'Ficus', '[]', '\(t0)')",
            refusal: "learnedspecies_specieskey_check"
        ),
        BadRow(
            rule: "a finished re-check has a finish time",
            postgres: "INSERT INTO recheck (identificationId, reason, state, queuedAt) VALUES (1, 'offline', 'done', '\(t0)')",
            refusal: "recheck_check"
        ),
        BadRow(
            rule: "one open suggestion per plant",
            postgres: "INSERT INTO speciesSuggestion (plantId, kind, identificationId, suggestedSpecies, confidence, createdAt) VALUES (1, 'rescore', 1, 'Ficus elastica', 0.7, '\(t0)')",
            refusal: "speciessuggestion_open"
        ),
        BadRow(
            rule: "a cache hit calls no API",
            postgres: "INSERT INTO identificationRun (householdId, ranAt, strategy, source, cacheHit, apiCalled, timings) VALUES (1, '\(t0)', 'hybrid', 'cache', TRUE, TRUE, '{}')",
            refusal: "identificationrun_check"
        ),
        // v15 / pg6: ownership.
        BadRow(
            rule: "a plant belongs to a household",
            postgres: "INSERT INTO plant (uuid, name, createdAt, updatedAt) VALUES ('\(uuid(101))', 'Palm', '\(t0)', '\(t0)')",
            refusal: "NOT NULL constraint on plant.householdid"
        ),
        BadRow(
            rule: "a plant's household exists", postgres: plant(extra: ("householdId", "99")), refusal: "plant_householdid_fkey"
        ),
        BadRow(
            rule: "an identification belongs to a household",
            postgres: "INSERT INTO identification (uuid, source, predictions, uncertain, identifiedAt) VALUES ('\(uuid(201))', 'onDevice', '[]', FALSE, '\(t0)')",
            refusal: "NOT NULL constraint on identification.householdid"
        ),
        BadRow(
            rule: "an identification's plant is of its household",
            postgres: "INSERT INTO identification (householdId, uuid, plantId, source, predictions, uncertain, identifiedAt) VALUES (1, '\(uuid(202))', 2, 'onDevice', '[]', FALSE, '\(t0)')",
            refusal: "identification_plant_household"
        ),
        BadRow(
            rule: "an identification does not move away from its plant's household",
            postgres: "UPDATE identification SET householdId = 2 WHERE id = 1",
            refusal: "identification_plant_household"
        ),
        BadRow(
            rule: "an identification run belongs to a household",
            postgres: "INSERT INTO identificationRun (ranAt, strategy, source, cacheHit, apiCalled, timings) VALUES ('\(t0)', 'hybrid', 'cache', TRUE, FALSE, '{}')",
            refusal: "NOT NULL constraint on identificationrun.householdid"
        ),
        BadRow(
            rule: "recorded by 1 to 64 characters",
            postgres: "INSERT INTO careEvent (uuid, plantId, task, day, createdAt, recordedBy) VALUES ('\(uuid(10))', 1, 'water', '2026-01-05', '\(t0)', '')",
            refusal: "careevent_recordedby_check"
        ),
        BadRow(
            rule: "an embedding has two bytes per dimension",
            postgres: "INSERT INTO photoEmbedding (photoSHA256, model, dimension, vector, createdAt) VALUES ('\(hex("a"))', 'm', 2, '\\x0000'::bytea, '\(t0)')",
            sqlite: "INSERT INTO photoEmbedding (photoSHA256, model, dimension, vector, createdAt) VALUES ('\(hex("a"))', 'm', 2, x'0000', '\(t0)')",
            refusal: "photoembedding_check"
        ),
    ]

    @Test func constraintsRefuseTheSameRowsAsSQLite() async throws {
        // SQLite, the reference: the base rows are kept and every bad row is refused.
        let sqlite = try DatabaseQueue()
        try Schema.migrator.migrate(sqlite)
        let keptBySQLite = try await sqlite.write { db -> [String] in
            for row in Self.baseRows { try db.execute(sql: row) }
            var kept: [String] = []
            for bad in Self.badRows {
                do {
                    try db.execute(sql: bad.sqlite ?? bad.postgres)
                    kept.append(bad.rule)
                } catch is DatabaseError {}
            }
            return kept
        }
        #expect(keptBySQLite == [])

        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store async throws in
                for row in Self.baseRows { try await store.execute(row, operation: "add a base row") }
                for bad in Self.badRows {
                    do {
                        try await store.execute(bad.postgres, operation: "add a bad row")
                        Issue.record("PostgreSQL kept the row of “\(bad.rule)”")
                    } catch {
                        guard case .database(let operation, let reason) = error as? StoreError else {
                            Issue.record("“\(bad.rule)”: \(error)")
                            continue
                        }
                        #expect(operation == "add a bad row")
                        #expect(reason.contains(bad.refusal), "“\(bad.rule)”: \(reason)")
                    }
                }
                // Nothing of the bad rows stayed.
                let plants = try await count(store, "plant")
                #expect(plants == 2)
            }
        }
    }

    // MARK: - careLastDone

    /// The same care events written and deleted on both, in the same order, leave the same last-done days.
    @Test func careLastDoneMatchesSQLite() async throws {
        let steps: [String] = [
            careEvent(1, plant: 1, task: "water", day: "2026-01-05"),
            careEvent(2, plant: 1, task: "water", day: "2026-01-09"),
            careEvent(3, plant: 1, task: "water", day: "2026-01-07"),
            careEvent(4, plant: 1, task: "mist", day: "2026-01-02"),
            careEvent(5, plant: 2, task: "water", day: "2026-01-03"),
            "DELETE FROM careEvent WHERE uuid = '\(Self.uuid(2))'",  // the latest: falls back to the next latest
            "DELETE FROM careEvent WHERE uuid = '\(Self.uuid(4))'",  // the only one: the row goes
            "UPDATE careEvent SET plantId = 2 WHERE uuid = '\(Self.uuid(1))'",  // moves to the other plant
            "UPDATE careEvent SET day = '2026-02-01' WHERE uuid = '\(Self.uuid(5))'",
            careEvent(6, plant: 2, task: "prune", day: "2026-01-20"),
            "DELETE FROM plant WHERE id = 2",  // cascades: its events and last-done rows go, and none comes back
        ]
        let query = "SELECT plantId, task, CAST(day AS text) FROM careLastDone ORDER BY plantId, task"
        let plants = Array(Self.baseRows.prefix(3))

        let sqlite = try DatabaseQueue()
        try Schema.migrator.migrate(sqlite)
        let sqliteStates = try await sqlite.write { db -> [[String]] in
            for row in plants { try db.execute(sql: row) }
            var states: [[String]] = []
            for step in steps {
                try db.execute(sql: step)
                let rows = try Row.fetchAll(db, sql: query)
                states.append(rows.map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as String)" }.sorted())
            }
            return states
        }

        let postgresStates = try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store async throws in
                for row in plants { try await store.execute(row, operation: "add a plant") }
                var states: [[String]] = []
                for step in steps {
                    try await store.execute(step, operation: "change care events")
                    let lines = try await store.withConnection("read careLastDone") { connection in
                        var lines: [[String]] = []
                        for sql in [query, Self.careLastDaysAsRows] {
                            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: store.logger)
                            var found: [String] = []
                            for try await (plant, task, day) in rows.decode((Int64, String, String).self) {
                                found.append("\(plant) \(task) \(day)")
                            }
                            lines.append(found.sorted())
                        }
                        return lines
                    }
                    // careLastDays (pg7) holds the same days, one row per plant, after every step.
                    #expect(lines[1] == lines[0], "after \(step)")
                    states.append(lines[0])
                }
                return states
            }
        }
        #expect(postgresStates == sqliteStates)
        #expect(sqliteStates[4] == ["1 mist 2026-01-02", "1 water 2026-01-09", "2 water 2026-01-03"])
        #expect(sqliteStates.last == ["1 water 2026-01-07"])
    }

    /// Applies and records the migrations before `id`, as an older PlantGuide left the database.
    static func applyMigrations(before id: String, on store: PostgresStore) async throws {
        try await store.execute(PostgresSchema.createMigrationTable, operation: "make the migration table")
        for migration in PostgresSchema.migrations.prefix(while: { $0.id != id }) {
            for statement in migration.statements { try await store.execute(statement, operation: "apply \(migration.id)") }
            try await store.execute("INSERT INTO schema_migration (id) VALUES ('\(migration.id)')", operation: "record it")
        }
    }

    /// careLastDays (pg7) as careLastDone's rows: plant, task, day.
    static let careLastDaysAsRows = """
        SELECT plantId, task, CAST(day AS text) FROM careLastDays CROSS JOIN LATERAL (
            VALUES ('water', water), ('fertilize', fertilize), ('repot', repot), ('mist', mist), ('prune', prune)
        ) AS days (task, day) WHERE day IS NOT NULL
        """

    /// A collection from before pg7 gets careLastDays filled from its care log, and reads the same care states.
    @Test func pg7FillsTheLastDaysPerPlantFromTheCareLog() async throws {
        try await TestPostgres.withSchema { location, options in
            var manual = options
            manual.migrate = false
            try await PostgresStore.withStore(location, options: manual) { store async throws in
                try await Self.applyMigrations(before: "pg7", on: store)
                for row in Self.baseRows.prefix(3) + [
                    careEvent(4, plant: 1, task: "water", day: "2026-01-05"),
                    careEvent(5, plant: 1, task: "water", day: "2026-01-09"),
                    careEvent(6, plant: 1, task: "prune", day: "2026-01-02"),
                    careEvent(7, plant: 2, task: "mist", day: "2026-01-03"),
                ] {
                    try await store.execute(row, operation: "add a row before pg7")
                }
                #expect(try await store.migrate() == ["pg7", "pg8", "pg9", "pg10", "pg11", "pg12", "pg13", "pg14", "pg15", "pg16", "pg17", "pg18"])
                #expect(try await count(store, "careLastDays") == 2)
                // pg8 gives every household a change stamp, so no household with plants is read at stamp 0.
                #expect(try await count(store, "changeStamp") == (try await count(store, "household")))
                #expect(try await count(store, "household") >= 2)
                let states = try await store.careStates(plantId: nil, room: nil)
                #expect(states.map(\.plantId) == [1])
                #expect(states.first?.lastDone[.water] == CalendarDay(dayNumber: 20_462))  // 2026-01-09
                #expect(states.first?.lastDone[.prune] == CalendarDay(dayNumber: 20_455))
                #expect(states.first?.lastDone[.mist] == nil)
                let joneses = try await store.scoped(to: HouseholdScope(household: 2)).careStates(plantId: nil, room: nil)
                #expect(joneses.map { $0.lastDone[.mist] } == [CalendarDay(dayNumber: 20_456)])
                // Logged after the migration, through the trigger.
                try await store.execute(careEvent(8, plant: 1, task: "mist", day: "2026-02-01"), operation: "log care")
                #expect(try await store.careStates(plantId: 1, room: nil).first?.lastDone[.mist] == CalendarDay(dayNumber: 20_485))
            }
        }
    }

    /// A collection from before pg17 keeps its health records, each with its diagnosis and photos; new ones may wait.
    @Test func pg17KeepsHealthRecordsAndLetsNewOnesWait() async throws {
        let now = Date(timeIntervalSince1970: 1_795_939_200.125)
        let answer = Diagnosis(
            source: .plantNetAPI, model: "2025-03-10 (diseases 1.2)",
            candidates: [DiseaseCandidate(rank: 1, eppoCode: "BOTRCI", name: "Grey mould", inDiseaseList: true, score: 0.62)],
            language: "en", date: now
        )
        let diagnosis = try DiagnosisColumn.encode(answer)
        let photo = StoredPhoto(
            sha256: Self.hex("d"), originalSHA256: Self.hex("d"), mediaType: "image/jpeg", byteCount: 10, width: nil, height: nil,
            thumbnailSHA256: nil, createdAt: now
        )
        try await TestPostgres.withSchema { location, options in
            var manual = options
            manual.migrate = false
            try await PostgresStore.withStore(location, options: manual) { store async throws in
                _ = try await store.migrate(before: "pg17")
                for row in Self.baseRows.prefix(4) {
                    try await store.execute(row, operation: "add a row before pg17")
                }
                try await store.execute("""
                    INSERT INTO healthRecord (uuid, plantId, diagnosis, note, recordedBy, recordedAt)
                    VALUES ('\(Self.uuid(9))', 1, '\(diagnosis.replacingOccurrences(of: "'", with: "''"))', 'spots', 'alice', '\(Self.t0)')
                    """, operation: "add a health record")
                try await store.execute("""
                    INSERT INTO healthRecordPhoto (recordId, position, photoSHA256, organ)
                    SELECT id, 0, '\(Self.hex("a"))', 'leaf' FROM healthRecord
                    """, operation: "add its photo")
                #expect(try await store.migrate() == ["pg17", "pg18"])
                let records = try await store.healthRecords(plantId: 1)
                #expect(records.count == 1)
                #expect(records.first?.diagnosis == answer)
                #expect(records.first?.photos == [HealthRecordPhoto(sha256: Self.hex("a"), organ: "leaf")])
                #expect(records.first?.waiting == nil)
                let waiting = try await store.saveHealthRecord(
                    NewHealthRecord(waitingIn: "de", photos: [(photo, "leaf")]), plantId: 1, now: now
                )
                #expect(try await store.waitingHealthRecords().map(\.id) == [waiting.id])
                #expect(try await store.waitingHealthRecords().first?.waiting?.language == "de")
            }
        }
    }

    // MARK: - Errors

    @Test func anUnreachableServerFailsWithoutWaiting() async throws {
        // A port nothing listens on: bind one, then close it.
        let port = try await freePort()
        let location = PostgresLocation(user: "postgres", password: "hunter2hunter2", host: "127.0.0.1", port: port, database: "postgres", sslMode: .disable)
        var options = PostgresStore.Options()
        options.connectTimeout = .seconds(3)
        let started = ContinuousClock.now
        do {
            try await PostgresStore.withStore(location, options: options) { _ in }
            Issue.record("opened a store on a closed port")
        } catch let error as StoreError {
            guard case .connection(let shown, let reason) = error else {
                Issue.record("not a connection error: \(error)")
                return
            }
            #expect(shown == "postgres://postgres:***@127.0.0.1:\(port)/postgres?sslmode=disable")
            #expect(reason.contains("no server answers at 127.0.0.1:\(port)"), "\(reason)")
            #expect(!error.description.contains("hunter2"))
        }
        // A refused connection is answered at once; the margin is for a machine busy with other tests.
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(12), "took \(elapsed)")
    }

    /// A server that accepts the connection and never answers: the connect time-out ends the wait.
    @Test func aSilentServerFailsAtTheConnectTimeout() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = silent.localAddress?.port ?? 0
        var options = PostgresStore.Options()
        options.connectTimeout = .seconds(1)
        let started = ContinuousClock.now
        await #expect {
            try await PostgresStore.withStore(
                PostgresLocation(user: "postgres", host: "127.0.0.1", port: port, database: "postgres", sslMode: .disable),
                options: options
            ) { _ in }
        } throws: { error in
            guard case .connection(_, let reason) = error as? StoreError else { return false }
            return reason.contains("no answer from 127.0.0.1:\(port) within 1")
        }
        // Without the time-out the wait never ends; the margin above one second is for a machine busy with other tests.
        #expect(ContinuousClock.now - started < .seconds(10))
        try await silent.close()
    }

    @Test func aWrongPasswordIsReportedWithoutIt() async throws {
        let server = try TestPostgres.location()
        let role = TestPostgres.uniqueName("pw_")
        try await TestPostgres.makePasswordRole(role, on: server)
        var wrong = server
        wrong.user = role
        wrong.password = "Wr0ng-Secret"
        await #expect {
            try await PostgresStore.withStore(wrong, options: TestPostgres.administration) { _ in }
        } throws: { error in
            guard let error = error as? StoreError, case .connection(let shown, let reason) = error else { return false }
            return shown.contains("\(role):***@") && reason.contains("refused the log-in as \"\(role)\"")
                && !error.description.contains("Wr0ng-Secret") && !String(reflecting: error).contains("Wr0ng-Secret")
        }
        var right = wrong
        right.password = "Right-Pa55word"
        let applied = try await PostgresStore.withStore(right, options: TestPostgres.administration) { store async throws in
            try await store.appliedMigrations()
        }
        #expect(applied == [])
        try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
            try await admin.execute("DROP ROLE \(role)", operation: "drop a role")
        }
    }

    @Test func aServerThatGoesAwayFailsOperationsAtTheLeaseTimeout() async throws {
        let server = try TestPostgres.location()
        let role = TestPostgres.uniqueName("gone_")
        try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
            try await admin.execute("CREATE ROLE \(role) LOGIN", operation: "create a role")
        }
        var location = server
        location.user = role
        var options = TestPostgres.administration
        options.maximumConnections = 1
        options.leaseTimeout = .seconds(2)
        let outcome = try await PostgresStore.withStore(location, options: options) { store in
            // The first connection may take longer than the lease timeout on a machine busy with other suites (a CI run
            // failed so): try again until one is made, so that the test starts from a connected pool.
            var connected = false
            for _ in 0..<10 where !connected {
                do {
                    try await store.execute("SELECT 1", operation: "check the connection")
                    connected = true
                } catch let error as StoreError where Self.isLeaseTimeout(error) {
                    continue
                }
            }
            try #require(connected, "no connection to the test cluster within 10 tries")
            // The server goes away for this role: its connection ends and new ones are refused, as when the database
            // server is down. The pool keeps trying to connect; the operation must not wait for it.
            try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
                try await admin.execute("ALTER ROLE \(role) NOLOGIN", operation: "refuse the role")
                try await admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'", operation: "end its connections"
                )
            }
            // The first operations may still be handed the ended connection and fail at once; then the pool has none
            // and keeps trying to connect: an operation gives up waiting at the lease timeout.
            var outcomes: [(StoreError?, Duration)] = []
            while outcomes.count < 5, !outcomes.contains(where: { Self.isLeaseTimeout($0.0) }) {
                let started = ContinuousClock.now
                do {
                    try await store.execute("SELECT 1", operation: "read after the server went away")
                    outcomes.append((nil, ContinuousClock.now - started))
                } catch let error as StoreError {
                    outcomes.append((error, ContinuousClock.now - started))
                }
            }
            return outcomes
        }
        try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
            try await admin.execute("DROP ROLE \(role)", operation: "drop a role")
        }
        #expect(outcome.allSatisfy { $0.0 != nil }, "no operation succeeds")
        let timedOut = outcome.first { Self.isLeaseTimeout($0.0) }
        #expect(timedOut.map { $0.1 >= .milliseconds(1_900) && $0.1 < .seconds(6) } == true, "\(String(describing: outcome))")
        #expect(outcome.allSatisfy { $0.1 < .seconds(6) }, "none waits for the pool's own minute")
        #expect(timedOut?.0?.description.contains("read after the server went away") == true)
    }

    static func isLeaseTimeout(_ error: StoreError?) -> Bool {
        guard case .connection(_, let reason)? = error else { return false }
        return reason.contains("no connection to the database within 2")
    }

    @Test func pooledConnectionsBoundLockWaitsAndIdleTransactions() async throws {
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store in
                let settings = try await store.withConnection("read the session settings") { connection in
                    var found: [String] = []
                    for name in ["lock_timeout", "idle_in_transaction_session_timeout", "jit"] {
                        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: store.logger)
                        for try await value in rows.decode(String.self) { found.append(value) }
                    }
                    return found
                }
                #expect(settings == ["15s", "1min", "off"])
            }
        }
    }

    @Test func roomsAndNamesFoldASCIIOnlyAsSQLiteDoesAlsoInAUTF8Database() async throws {
        let server = try TestPostgres.location()
        let name = TestPostgres.uniqueName("utf8_")
        try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
            try await admin.execute(
                "CREATE DATABASE \(name) TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'", operation: "create a UTF-8 database"
            )
        }
        var location = server
        location.database = name
        let now = Date(timeIntervalSince1970: 1_795_478_400)
        func names(_ store: any PlantsStore) async throws -> (kitchen: [String], all: [String], skipped: Int) {
            for (plant, room) in [("Fern", "Küche"), ("Ivy", "KÜCHE"), ("Äloe", nil), ("aloe", nil), ("Zebra", "hall")] {
                try await store.addPlant(NewPlant(name: plant, room: room), profile: Self.profile, photo: nil, now: now)
            }
            let skipped = try await store.addPlantsSkippingDuplicates([(NewPlant(name: "FERN", room: "küche"), Self.profile)], now: now)
            return (
                try await store.plants(room: "küche").map(\.name), try await store.plants(room: nil).map(\.name), skipped.skipped
            )
        }
        let onPostgres = try await PostgresStore.withStore(location) { store in
            // This database's own lower() folds Ü: without the C collation, KÜCHE would be the same room as Küche.
            let folds = try await store.withConnection("check the locale") { connection in
                var value = false
                for try await folded in try await connection.query("SELECT lower('KÜCHE') = 'küche'", logger: store.logger)
                    .decode(Bool.self) { value = folded }
                return value
            }
            #expect(folds, "the test database folds non-ASCII letters, so the test shows something")
            return try await names(store)
        }
        try await PostgresStore.withStore(server, options: TestPostgres.administration) { admin in
            try await admin.execute("DROP DATABASE \(name) WITH (FORCE)", operation: "drop the UTF-8 database")
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("plantstore-utf8-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let onSQLite = try await names(try CollectionDatabase.open(in: DataDirectory(url: home)))
        #expect(onPostgres.kitchen == ["Fern"], "only Küche: SQLite's NOCASE does not fold Ü")
        #expect(onPostgres.kitchen == onSQLite.kitchen)
        #expect(onPostgres.all == onSQLite.all, "the same list order")
        #expect(onPostgres.skipped == onSQLite.skipped)
    }

    /// The arrays `array_agg` makes, read by ``PostgresColumns``: NULL elements kept where allowed and refused where
    /// not, an empty or NULL array as no elements, and arrays of more dimensions or another element type refused.
    @Test func arrayColumnsAreReadWithTheirNullsAndCheckedForType() async throws {
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store in
                try await store.withConnection("read arrays") { connection in
                    let rows = try await connection.query("""
                        SELECT ARRAY[1, NULL, 3]::bigint[], ARRAY[7, NULL]::integer[], ARRAY['a', NULL, 'é']::text[],
                               '{}'::bigint[], NULL::bigint[], ARRAY[DATE '1969-12-31', NULL, DATE '2000-01-01'],
                               ARRAY[true, false], ARRAY[TIMESTAMPTZ '1999-12-31 23:59:59.9995+00'],
                               ARRAY[[1, 2], [3, 4]]::bigint[], ARRAY[1, NULL]::bigint[], ARRAY[1]::bigint[],
                               (SELECT array_agg(x) FROM generate_series(1, 0) AS x)
                        """, logger: store.logger)
                    for try await row in rows {
                        var columns = PostgresColumns(row)
                        #expect(try columns.optionalIntArray() == [1, nil, 3])
                        #expect(try columns.optionalIntArray() == [7, nil])
                        #expect(try columns.optionalStringArray() == ["a", nil, "é"])
                        #expect(try columns.int64Array() == [])
                        #expect(try columns.int64Array() == [], "a NULL array has no elements")
                        #expect(try columns.optionalDayArray() == [CalendarDay(dayNumber: -1), nil, CalendarDay(dayNumber: 10_957)])
                        #expect(try columns.boolArray() == [true, false])
                        #expect(try columns.instantArray() == [Date(timeIntervalSince1970: 946_684_800)], "rounded half up")
                        #expect(throws: StoreError.self) { try columns.int64Array() }
                        #expect {
                            try columns.int64Array()
                        } throws: { error in
                            (error as? StoreError)?.description.contains("NULL where the store needs a value") == true
                        }
                        #expect {
                            try columns.stringArray()
                        } throws: { error in
                            (error as? StoreError)?.description.contains("not text") == true
                        }
                        #expect(try columns.optionalDayArray() == [], "an aggregate of no rows")
                    }
                }
            }
        }
    }

    static let profile = CareProfile(
        light: .brightIndirect, waterGrowingDays: 7, waterWinterDays: 14, fertilizeGrowingDays: 30, mistDays: nil, repotDays: 730,
        pruneDays: nil, humidity: .medium, minTemperature: 16, maxTemperature: 29, toxicToCats: false, toxicToDogs: false,
        toxicitySource: "test", basis: "test"
    )

    @Test func runRetentionKeepsTheNewestRunsAcrossGapsInTheIds() async throws {
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store in
                let retention = IdentificationRunRetention(maximumAge: 10 * 86_400, maximumCount: 3)
                let start = Date(timeIntervalSince1970: 1_795_478_400)
                for index in 0..<5 {
                    let run = IdentificationRun(
                        date: start.addingTimeInterval(Double(index) * 60), strategy: "on-device", source: .onDevice, cacheHit: false,
                        apiCalled: false, remainingRequests: nil, timings: [:]
                    )
                    try await store.recordIdentificationRun(run, now: run.date, retention: retention)
                    // Ids another replica took, or inserts rolled back: the sequence skips them.
                    try await store.execute(
                        "SELECT nextval(pg_get_serial_sequence('identificationrun', 'id')) FROM generate_series(1, 4)",
                        operation: "skip ids"
                    )
                }
                let kept = try await store.identificationRuns(last: 10)
                #expect(kept.map(\.date) == (2..<5).reversed().map { start.addingTimeInterval(Double($0) * 60) })
            }
        }
    }

    @Test func aMissingDatabaseIsNamed() async throws {
        var location = try TestPostgres.location()
        location.database = TestPostgres.uniqueName("missing_")
        await #expect {
            try await PostgresStore.withStore(location, options: TestPostgres.administration) { _ in }
        } throws: { error in
            guard case .connection(_, let reason) = error as? StoreError else { return false }
            return reason.contains("the database \"\(location.database)\" does not exist")
        }
    }

    // MARK: - Helpers

    static let t0 = "2026-01-05 10:00:00"

    static func uuid(_ n: Int) -> String { String(format: "00000000-0000-0000-0000-%012d", n) }

    static func hex(_ digit: Character) -> String { String(repeating: digit, count: 64) }

    static func plant(
        uuid: String = "'\(uuid(100))'", name: String = "'Palm'", updatedAt: String = "'\(t0)'", extra: (String, String)? = nil
    ) -> String {
        // In household 1 unless `extra` names the household.
        let household = extra?.0 == "householdId" ? [] : ["householdId"]
        let columns = household + ["uuid", "name", "createdAt", "updatedAt"] + (extra.map { [$0.0] } ?? [])
        let values = (household.isEmpty ? [] : ["1"]) + [uuid, name, "'\(t0)'", updatedAt] + (extra.map { [$0.1] } ?? [])
        return "INSERT INTO plant (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
    }

    static func identification(predictions: String = "'[]'", source: String = "'onDevice'") -> String {
        "INSERT INTO identification (householdId, uuid, source, predictions, uncertain, identifiedAt) VALUES (1, '\(uuid(200))', \(source), \(predictions), FALSE, '\(t0)')"
    }

    func careEvent(_ n: Int, plant: Int, task: String, day: String) -> String {
        "INSERT INTO careEvent (uuid, plantId, task, day, createdAt) VALUES ('\(Self.uuid(n))', \(plant), '\(task)', '\(day)', '\(Self.t0)')"
    }

    func tables(_ store: PostgresStore) async throws -> Set<String> {
        try await store.withConnection("list tables") { connection in
            let rows = try await connection.query(
                "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()", logger: store.logger
            )
            var names: Set<String> = []
            for try await name in rows.decode(String.self) { names.insert(name) }
            return names
        }
    }

    func count(_ store: PostgresStore, _ table: String) async throws -> Int64 {
        try await store.withConnection("count") { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: store.logger)
            var count: Int64 = -1
            for try await value in rows.decode(Int64.self) { count = value }
            return count
        }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound, read and closed again.
    func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
