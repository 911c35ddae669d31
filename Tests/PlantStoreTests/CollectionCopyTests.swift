import Foundation
import GRDB
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing

/// `plantguide migrate`'s copy: an SQLite collection with a row in every table, copied into a fresh PostgreSQL schema,
/// must come out the same (rows, ids, exports), keep working there (new ids, log-ins, quota), and a second copy is
/// refused unless it replaces.
@Suite struct CollectionCopyTests {
    /// 2026-11-24 08:30:00.123 UTC: odd milliseconds, so a rounding anywhere shows.
    private static let now = Date(timeIntervalSince1970: 1_795_509_000.123)
    private static let passwordHash = "pbkdf2-sha256$600000$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g="
    private static let sessionHash = String(repeating: "5e", count: 32)
    private static let model = EmbeddingModel(name: "resnet18-index", checksum: String(repeating: "a", count: 64))

    private struct Seeded {
        var removedPlantId: Int64
        var aliceId: Int64
    }

    /// A row in every table: plants (one removed, so SQLite's sequence is past the largest id), photos with a cover,
    /// profiles, schedules, care events, identifications (filed, new plant, unsaved, a re-check answer), re-checks (one
    /// done with a suggestion, one queued with photos), the identification log, an embedding, learned names, accounts,
    /// a log-in, a failed log-in, the Pl@ntNet quota and cache, the server secret, a setting, a calendar token, an
    /// upload and a health record with its photos.
    private static func seed(_ store: any PlantGuideStore) async throws -> Seeded {
        let now = now
        let first = storedPhoto(1, at: now), second = storedPhoto(2, at: now), queued = storedPhoto(3, at: now)
        let fern = try await store.addPlant(
            NewPlant(name: "Fern", species: "Nephrolepis exaltata", nickname: "Fronds", room: "Hall", acquiredOn: day("2025-05-04"),
                     notes: "from grandma"),
            profile: .fixture(), photo: first, now: now
        )
        let cactus = try await store.addPlant(NewPlant(name: "Cactus"), profile: .fixture(water: 21, fertilize: nil), photo: nil, now: now)
        try await store.attachPhoto(second, toPlant: cactus.id, now: now.addingTimeInterval(0.001))
        try await store.attachPhoto(first, toPlant: cactus.id, now: now.addingTimeInterval(60.5))
        try await store.setCoverPhoto(first.sha256, ofPlant: cactus.id, now: now)
        try await store.updateScheduleSettings(plantId: cactus.id, task: .water) { $0.growingDays = 18; $0.snoozedUntil = day("2026-12-02") }
        try await store.updateScheduleSettings(plantId: fern.id, task: .fertilize) { $0.paused = true }
        try await store.logCare(plantId: fern.id, task: .water, day: day("2026-11-20"), note: "rain water", now: now)
        try await store.logCare(plantId: fern.id, task: .water, day: day("2026-11-23"), note: nil, now: now)
        try await store.logCare(plantId: fern.id, task: .water, day: day("2026-11-21"), note: "out of order", now: now)
        try await store.logCare(plantId: cactus.id, task: .repot, day: day("1999-10-01"), note: "bigger pot", now: now)

        _ = try await store.fileIdentification(
            sampleIdentification("Nephrolepis exaltata", at: now), photo: first, plantId: fern.id, newPlant: nil,
            chosenSpecies: "Nephrolepis exaltata", recheck: nil, now: now
        )
        let device = Identification(
            source: .onDevice, model: "resnet18-test", predictions: [SpeciesPrediction(rank: 1, scientificName: "Ficus lyrata", confidence: 0.41)],
            uncertain: true, timings: ["inference": 12.5], date: now.addingTimeInterval(5)
        )
        let saved = try await store.fileIdentification(
            device, photo: second, plantId: nil, newPlant: (NewPlant(name: "Ficus lyrata", species: "Ficus lyrata", room: "living room"), .fixture(water: 9)),
            chosenSpecies: "Ficus lyrata", recheck: RecheckRequest(reason: .uncertain, photos: [(second, "leaf")]), now: now
        )
        _ = try await store.fileIdentification(
            device, photo: nil, plantId: nil, newPlant: nil, chosenSpecies: nil,
            recheck: RecheckRequest(reason: .offline, photos: [(queued, "leaf"), (first, "flower")]), now: now
        )
        try await store.saveHealthRecord(
            NewHealthRecord(diagnosis: sampleDiagnosis(at: now), photos: [(first, "leaf"), (storedPhoto(4, at: now), "bark")], note: "spots"),
            plantId: fern.id, now: now.addingTimeInterval(0.007)
        )
        // The last plant goes again: SQLite never gives its id again, nor must PostgreSQL.
        let doomed = try await store.addPlant(NewPlant(name: "Doomed"), profile: .fixture(), photo: nil, now: now)
        _ = try await store.removePlant(id: doomed.id)
        let item = try #require(try await store.recheck(ofIdentification: saved.id))
        #expect(try await store.claimRecheck(item.id, now: now, lease: 60, claimant: "test:1"))
        let answer = Identification(
            source: .plantNetAPI, model: "2026-01 (7.3)", predictions: [SpeciesPrediction(rank: 1, scientificName: "Ficus elastica", confidence: 0.87)],
            uncertain: false, date: now.addingTimeInterval(30)
        )
        let completion = try #require(try await store.completeRecheck(item.id, answer: answer, now: now.addingTimeInterval(30)))
        #expect(completion.suggestion != nil)
        try await store.recordIdentificationRun(
            IdentificationRun(date: now, strategy: "hybrid", source: .plantNetAPI, cacheHit: false, apiCalled: true, remainingRequests: 499,
                              timings: ["request": 801.25]),
            now: now, retention: .standard
        )
        try await store.setEmbedding([0.5, -0.25, 1], model: model, forPhoto: first.sha256, now: now)
        try await store.recordLearnedSpecies([
            LearnedSpecies(binomial: "Monstera deliciosa", language: "en", commonNames: ["Swiss cheese plant", "Ceriman"],
                           family: "Araceae", gbifId: "2868241", learnedAt: now),
        ])

        let alice = try await store.addUser(name: "alice", role: .owner, passwordHash: passwordHash, now: now)
        _ = try await store.addUser(name: "Bob", role: .member, passwordHash: passwordHash + "B", now: now.addingTimeInterval(1))
        try await store.createSession(idHash: sessionHash, userId: alice.id, expiresAt: now.addingTimeInterval(86_400), now: now)
        try await store.recordLoginFailure(.account, subject: "mallory", at: now)

        _ = try await store.plantNetQuota(day: "2026-11-24", dailyLimit: 500, now: now)
        _ = try await store.reservePlantNetRequest(day: "2026-11-24", dailyLimit: 500, floor: 0, now: now)
        try await store.storeCachedAnswer(
            CachedAnswerRow(exactKey: "k1", project: "all", language: "en", organs: "leaf", perceptualHashes: "[12345678901234]",
                            answer: #"{"results":[],"é":"ü"}"#, storedAt: now, lastUsedAt: now),
            capacity: 100, freshAfter: now.addingTimeInterval(-86_400)
        )
        try await store.recordAnswerCacheUse(exactKey: nil, now: now)
        _ = try await store.serverSecret(named: "session", make: { Data((0..<32).map { UInt8($0 * 7 % 256) }) }, now: now)
        try await store.setHouseholdSetting(.identifyStrategy, to: "hybrid", household: 1, now: now)
        try await store.setCalendarToken(String(repeating: "c", count: 64), household: 1)
        _ = try await store.saveUpload(
            RecentUploadRow(id: "upload-0123456789", householdId: 1, sessionHash: sessionHash,
                            photos: [RecentUploadPhoto(sha256: queued.sha256, kind: "jpeg", organ: "leaf")], outcome: #"{"species":"x"}"#,
                            recheckIdentificationId: saved.id, createdAt: now, expiresAt: now.addingTimeInterval(3600)),
            keepPerSession: 10
        )
        let channel = try await store.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: "https://ntfy.sh/plants-é", token: "tk_1", minuteOfDay: 450), household: 1, now: now
        )
        _ = try await store.addReminderChannel(
            NewReminderChannel(
                kind: .email, target: "mailto:alice@example.org", minuteOfDay: 420, member: alice.id,
                quietHours: QuietHours(from: 1_320, until: 420)
            ),
            household: 1, now: now
        )
        try await store.setCareAssignment(plant: fern.id, household: 1, to: .member(alice.id))
        try await store.setCareAssignment(plant: cactus.id, household: 1, to: .turns)
        let digestDay = try #require(CalendarDay("2026-11-24"))
        _ = try await store.claimReminderDigest(channel: channel.id, day: digestDay, now: now, lease: 300)
        try await store.finishReminderDigest(
            channel: channel.id, day: digestDay, attempt: 1, outcome: .failed("answered 503", retryAt: now), now: now
        )
        return Seeded(removedPlantId: doomed.id, aliceId: alice.id)
    }

    @Test func aCollectionWithEveryKindOfRowIsCopiedExactlyAndKeepsWorkingOnPostgreSQL() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let seeded = try await Self.seed(database)
        let sqliteRows = try database.rowsForCopy()
        let empty = sqliteRows.filter(\.rows.isEmpty).map(\.table.name)
        #expect(empty.isEmpty, "the seed leaves tables empty: \(empty)")
        #expect(sqliteRows.map(\.table.name).count == 29)

        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store in
                let copied = try await store.copyCollection(from: database, replacing: false)
                #expect(copied == sqliteRows.filter { !$0.table.isDerived }.map(\.rows.count).reduce(0, +))
                let verification = try await store.verifyCopy(of: database, now: Self.now)
                #expect(verification.isExact, "\(verification.differingTables)")
                #expect(verification.exportsEqual)
                #expect(verification.tables.map(\.table) == CollectionCopy.tables.map(\.name))
                for check in verification.tables {
                    #expect(check.sourceRows == check.targetRows && check.rowsEqual, "\(check.table)")
                    #expect(check.sourceRows > 0, "\(check.table) was not exercised")
                }
                // careLastDone was written by PostgreSQL's trigger, and agrees with SQLite's.
                let lastDone = try #require(verification.tables.first { $0.table == "careLastDone" })
                #expect(lastDone.targetRows == 2 && lastDone.rowsEqual)

                // Ids kept, read through the stores.
                #expect(try await store.plants(room: nil).map(\.id) == (try database.plants(room: nil)).map(\.id))
                #expect(try await store.identifications(plantId: nil).map(\.id) == (try database.identifications(plantId: nil)).map(\.id))
                let expected = try database.careStates(plantId: nil, room: nil)
                #expect(try await store.careStates(plantId: nil, room: nil) == expected)

                // New rows get ids past every id SQLite gave, the removed plant's included.
                let added = try await store.addPlant(NewPlant(name: "Newcomer"), profile: .fixture(), photo: nil, now: Self.now)
                #expect(added.id == seeded.removedPlantId + 1)
                let maxIdentification = try database.identifications(plantId: nil).map(\.id).max() ?? 0
                let filed = try await store.fileIdentification(
                    sampleIdentification("Pilea peperomioides", at: Self.now), photo: nil, plantId: added.id, newPlant: nil,
                    chosenSpecies: nil, recheck: nil, now: Self.now
                )
                #expect(filed.id == maxIdentification + 1)
                let carol = try await store.addUser(name: "carol", role: .member, passwordHash: Self.passwordHash, now: Self.now)
                #expect(carol.id == 3)

                // Accounts log in as before: the hash is kept, and the live log-in too.
                #expect(try await store.user(named: "ALICE")?.passwordHash == Self.passwordHash)
                let principal = try await store.session(idHash: Self.sessionHash, now: Self.now)
                #expect(principal?.userId == seeded.aliceId && principal?.name == "alice" && principal?.role == .owner)
                #expect(try await store.loginFailures(.account, subject: "mallory", since: Self.now.addingTimeInterval(-60)).count == 1)
                // The quota counts on from SQLite's.
                let quota = try await store.plantNetQuota(day: "2026-11-24", dailyLimit: 500, now: Self.now)
                let sqliteQuota = try database.plantNetQuota(day: "2026-11-24", dailyLimit: 500, now: Self.now)
                #expect(quota.spent == 1 && quota.available == sqliteQuota.available && quota.spent == sqliteQuota.spent)
                #expect(try await store.calendarToken(household: 1) == String(repeating: "c", count: 64))
                #expect(try await store.householdSettings(household: 1) == [.identifyStrategy: "hybrid"])
                #expect(try await store.serverSecret(named: "session", make: { Data(count: 32) }, now: Self.now)
                    == Data((0..<32).map { UInt8($0 * 7 % 256) }))
            }
        }
    }

    @Test func aSecondCopyIsRefusedUnlessItReplacesWhatIsThere() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        _ = try await Self.seed(database)
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store in
                _ = try await store.copyCollection(from: database, replacing: false)
                _ = try await store.addPlant(NewPlant(name: "Only on PostgreSQL"), profile: .fixture(), photo: nil, now: Self.now)
                do {
                    _ = try await store.copyCollection(from: database, replacing: false)
                    Issue.record("a second copy into a non-empty database was not refused")
                } catch let error as TargetNotEmptyError {
                    #expect(error.occupiedTables.first { $0.table == "plant" }?.rows == 4)
                    #expect(error.description.contains("already holds a collection (household: 1, appUser: 2, loginSession: 1, loginFailure: 1, plant: 4"), "\(error)")
                }
                // Nothing changed.
                #expect(try await store.plantCount() == 4)
                // Read (and kept in memory) before the copy replaces them: the copy stamps every household anew.
                #expect(try await store.plants(room: nil).count == 4)
                #expect(try await store.careStates(plantId: nil, room: nil).count == 4)

                let copied = try await store.copyCollection(from: database, replacing: true)
                #expect(copied > 0)
                #expect(try await store.plantCount() == 3)
                #expect(try await store.plants(room: nil).map(\.uuid) == (try database.plants()).map(\.uuid))
                #expect(try await store.careStates(plantId: nil, room: nil).map(\.plantUUID) == (try database.careStates()).map(\.plantUUID))
                #expect(try await store.verifyCopy(of: database, now: Self.now).isExact)
                // An extra row on either side is a difference the verification reports.
                let sqlite: any PlantGuideStore = database
                _ = try await sqlite.addPlant(NewPlant(name: "Only on SQLite"), profile: .fixture(), photo: nil, now: Self.now)
                let differing = try await store.verifyCopy(of: database, now: Self.now)
                #expect(!differing.isExact && !differing.exportsEqual)
                #expect(differing.differingTables.map(\.table) == ["plant", "careProfile"])
            }
        }
    }

    /// Two households: each keeps its own rows and ids, the verification compares each household's export, and a row
    /// of the second household differing is a difference.
    @Test func twoHouseholdsAreCopiedAndEachHouseholdsExportIsCompared() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        _ = try await Self.seed(database)
        let joneses = try database.createHousehold(named: "Joneses", now: Self.now)
        let theirs = HouseholdScope(household: joneses.id, userName: "jo")
        let sqlite: any PlantGuideStore = database
        let palm = try await HouseholdScope.$current.withValue(theirs) {
            let palm = try await sqlite.addPlant(NewPlant(name: "Palm", room: "Hall"), profile: .fixture(), photo: storedPhoto(9, at: Self.now), now: Self.now)
            try await sqlite.logCare(plantId: palm.id, task: .water, day: day("2026-11-22"), note: nil, now: Self.now)
            _ = try await sqlite.fileIdentification(
                sampleIdentification("Howea forsteriana", at: Self.now), photo: nil, plantId: palm.id, newPlant: nil,
                chosenSpecies: nil, recheck: nil, now: Self.now
            )
            return palm
        }
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store async throws in
                _ = try await store.copyCollection(from: database, replacing: false)
                let verification = try await store.verifyCopy(of: database, now: Self.now)
                #expect(verification.isExact, "\(verification.differingTables)")
                #expect(try await store.households().map(\.name) == ["Home", "Joneses"])
                try await HouseholdScope.$current.withValue(theirs) {
                    #expect(try await store.plants(room: nil).map(\.id) == [palm.id])
                    #expect(try await store.events(plantId: nil).map(\.recordedBy) == ["jo"])
                    #expect(try await store.identifications(plantId: nil).map(\.recordedBy) == ["jo"])
                    let export = try await store.exportSnapshot(now: Self.now, generator: "test")
                    #expect(export.plants.map(\.name) == ["Palm"])
                }
                #expect(try await store.plants(room: nil).map(\.name).contains("Palm") == false)
                // A change to the second household only is found by comparing its export.
                try await store.execute("UPDATE plant SET notes = 'moved' WHERE id = \(palm.id)", operation: "change a row")
                let differing = try await store.verifyCopy(of: database, now: Self.now)
                #expect(!differing.exportsEqual)
                #expect(differing.differingTables.map(\.table) == ["plant"])
            }
        }
    }

    @Test func anEmptyCollectionCopiesAndNewRowsStartAtOne() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store async throws in
                // Only the household every database starts with: copied (SQLite's, with its own creation time).
                #expect(try await store.copyCollection(from: database, replacing: false) == 1)
                #expect(try await store.verifyCopy(of: database, now: Self.now).isExact)
                #expect(try await store.addPlant(NewPlant(name: "First"), profile: .fixture(), photo: nil, now: Self.now).id == 1)
                #expect(try await store.addUser(name: "first", role: .owner, passwordHash: Self.passwordHash, now: Self.now).id == 1)
            }
            // A household given a calendar token is not the untouched one a new database starts with.
            try await PostgresStore.withStore(location, options: options) { store async throws in
                try await store.execute("TRUNCATE plant, appUser CASCADE", operation: "empty the target again")
                #expect(try await store.copyCollection(from: database, replacing: false) == 1)
                try await store.setCalendarToken(String(repeating: "d", count: 64), household: 1)
                await #expect(throws: TargetNotEmptyError.self) { try await store.copyCollection(from: database, replacing: false) }
            }
        }
    }

    /// A table or column added to either schema and not to ``CollectionCopy/tables`` would be lost by a migration.
    @Test func theCopyListsEveryTableAndColumnOfBothSchemas() async throws {
        let listed = Dictionary(uniqueKeysWithValues: CollectionCopy.tables.map { table in
            (table.name.lowercased(), Set(table.columns.map { $0.name.lowercased() }))
        })
        #expect(listed.count == CollectionCopy.tables.count)
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let sqlite = try await database.writer.read { db in
            var columns: [String: Set<String>] = [:]
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                """)
            for table in tables where !CollectionCopy.uncopiedTables.contains(table) {
                let rows = try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")")
                columns[table.lowercased()] = Set(rows.map { ($0["name"] as String).lowercased() })
            }
            return columns
        }
        #expect(sqlite == listed)
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store async throws in
                #expect(try await store.schemaColumns() == listed)
            }
        }
        // Every key column is one of the table's columns, and identity tables have an id.
        for table in CollectionCopy.tables {
            #expect(table.key.allSatisfy { table.kind(of: $0) != nil }, "\(table.name)")
            #expect(!table.hasIdentity || table.kind(of: "id") == .integer, "\(table.name)")
        }
    }

    @Test func aDatabaseANewerPlantGuideMigratedIsRefused() async throws {
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { store in
                try await store.execute("INSERT INTO schema_migration (id) VALUES ('pg99')", operation: "pretend to be newer")
            }
            do {
                try await PostgresStore.withStore(location, options: options) { _ in }
                Issue.record("a newer database was opened")
            } catch {
                guard case .newerDatabase(_, let unknown)? = error as? StoreError else {
                    Issue.record("expected newerDatabase, got \(error)")
                    return
                }
                #expect(unknown == ["pg99"])
            }
        }
    }
}
