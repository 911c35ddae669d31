import Foundation
import GRDB
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

@Suite struct DatabaseTests {
    @Test func createsEmptyDatabaseWithEveryMigrationInWALMode() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        #expect(try database.appliedMigrations() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26"])
        let mode = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let foreignKeys = try database.writer.read { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(foreignKeys == true)
        #expect(try database.integrityCheck() == ["ok"])
        #expect(FileManager.default.fileExists(atPath: home.databaseURL.path))
    }

    @Test func upgradesAVersionOneDatabaseKeepingItsData() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        // Write a database as the first release did: only migration v1, rows through raw SQL.
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try Schema.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO plant (uuid, name, species, room, createdAt, updatedAt)
                    VALUES ('00000000-0000-0000-0000-000000000001', 'Monstera deliciosa', 'Monstera deliciosa',
                            'Hall', '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000');
                    INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature,
                            maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis)
                    VALUES (1, 'medium', 7, 14, 'medium', 16, 29, 1, 1, 'test', 'test');
                    INSERT INTO plant (uuid, name, species, room, createdAt, updatedAt)
                    VALUES ('00000000-0000-0000-0000-000000000002', 'Stromanthe', 'Stromanthe sanguinea',
                            'Hall', '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000');
                    INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature,
                            maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis)
                    VALUES (2, 'medium', 5, 9, 'high', 18, 29, 0, 0,
                            'not verified for this group; treated as toxic to be safe', 'genus Stromanthe');
                    INSERT INTO plant (uuid, name, species, room, createdAt, updatedAt)
                    VALUES ('00000000-0000-0000-0000-000000000003', 'Air plant', 'Tillandsia ionantha',
                            'Hall', '2026-01-02 10:00:00.000', '2026-01-02 10:00:00.000');
                    INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature,
                            maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis)
                    VALUES (3, 'bright indirect', 7, 14, 'medium', 10, 30, 0, 0, 'ASPCA toxic and non-toxic plant list',
                            'genus Tillandsia');
                    INSERT INTO careEvent (uuid, plantId, task, day, createdAt)
                    VALUES ('00000000-0000-0000-0000-00000000000a', 1, 'water', '2026-01-05', '2026-01-05 09:00:00.000');
                    """)
            }
            await #expect(try queue.read { db in try db.tableExists("careSchedule") } == false)
            try queue.close()
        }
        let database = try home.open()
        #expect(try database.appliedMigrations() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26"])
        // v16 gave every household a change stamp (the upgraded plants are household 1's).
        let (stamps, households) = try await database.writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM changeStamp WHERE stamp > 0"), try Int.fetchOne(db, sql: "SELECT count(*) FROM household"))
        }
        #expect(stamps == households && households == 1)
        // v17 starts the log of changed plants there: a list kept at today's stamp can be brought up to date from it; the
        // one plant v18 changed after it is in that log.
        let (logStart, logged) = try await database.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM changeStamp WHERE since > 0 AND since < stamp"),
                try Int64.fetchAll(db, sql: "SELECT plantId FROM plantChange ORDER BY plantId")
            )
        }
        #expect(logStart == households)
        #expect(logged == [2, 3])
        // v18: a profile that said "not toxic" on an unchecked claim says toxic; a checked one is left as it was. v20: the
        // air plant said "not toxic" citing ASPCA, which has no page for Tillandsia: now unknown, kept as toxic.
        let toxic = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT toxicToCats, toxicToDogs, toxicitySource FROM careProfile ORDER BY plantId")
                .map { ($0["toxicToCats"] as Bool, $0["toxicToDogs"] as Bool, $0["toxicitySource"] as String) }
        }
        #expect(toxic.map(\.0) == [true, true, true] && toxic.map(\.1) == [true, true, true])
        #expect(toxic.map(\.2) == [
            "test", "not verified for this group; treated as toxic to be safe",
            "not verified: no ASPCA entry found for this genus; treated as toxic to be safe",
        ])
        let plants = try database.plants().filter { $0.name != "Stromanthe" && $0.name != "Air plant" }
        #expect(plants.map(\.name) == ["Monstera deliciosa"])
        #expect(plants.first?.room == "Hall")
        #expect(try database.events(plantId: 1).map(\.day) == [day("2026-01-05")])
        // The last-done table added in v3 was filled from the old events.
        let planner = CarePlanner(store: database, hemisphere: .north, timeZone: TimeZone(identifier: "UTC") ?? .current) {
            Date(timeIntervalSince1970: 1_767_600_000)  // 2026-01-05
        }
        #expect(try await planner.schedule(forPlant: 1).first?.lastDone == day("2026-01-05"))
        // The new table works on the upgraded file.
        try database.updateScheduleSettings(plantId: 1, task: .water) { $0.growingDays = 5 }
        #expect(try database.details(ofPlant: 1).scheduleSettings.first?.growingDays == 5)
    }

    @Test func lastDoneFollowsEveryChangeToTheCareLog() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let plant = try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(), now: Date())
        func lastWatered() throws -> String? {
            try database.writer.read { db in
                try String.fetchOne(db, sql: "SELECT day FROM careLastDone WHERE plantId = ? AND task = 'water'", arguments: [plant.id])
            }
        }
        let late = try database.logCare(plantId: plant.id, task: .water, day: day("2026-03-10"), now: Date())
        try database.logCare(plantId: plant.id, task: .water, day: day("2026-03-01"), now: Date())
        #expect(try lastWatered() == "2026-03-10")
        try database.writer.write { db in try db.execute(sql: "DELETE FROM careEvent WHERE id = ?", arguments: [late.id]) }
        #expect(try lastWatered() == "2026-03-01")
        try database.writer.write { db in try db.execute(sql: "UPDATE careEvent SET task = 'mist'") }
        #expect(try lastWatered() == nil)
        try database.removePlant(id: plant.id)
        #expect(try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM careLastDone") } == 0)
    }

    @Test func refusesAFileThatIsNotADatabaseAndLeavesItAlone() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let junk = Data("this is my shopping list, not a database\n".utf8)
        try junk.write(to: home.databaseURL)
        #expect(throws: StoreError.self) { try home.open() }
        do {
            _ = try home.open()
        } catch {
            #expect("\(error)".contains("not an SQLite database"))
        }
        #expect(try Data(contentsOf: home.databaseURL) == junk)
        #expect(!FileManager.default.fileExists(atPath: home.databaseURL.path + "-wal"))
    }

    @Test func refusesAForeignSQLiteDatabaseAndLeavesItAlone() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)") }
            try queue.close()
        }
        let before = try Data(contentsOf: home.databaseURL)
        var message = ""
        do { _ = try home.open() } catch { message = "\(error)" }
        #expect(message.contains("did not create"))
        #expect(try Data(contentsOf: home.databaseURL) == before)
    }

    @Test func refusesADamagedDatabase() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        do {
            let database = try home.open()
            for index in 0..<200 {
                try database.addPlant(NewPlant(name: "Plant \(index)", notes: String(repeating: "x", count: 500)), profile: .fixture(), now: Date())
            }
        }
        // Keep the header but overwrite the rest of the first pages with garbage.
        let handle = try FileHandle(forWritingTo: home.databaseURL)
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 8192))
        try handle.close()
        let damaged = try Data(contentsOf: home.databaseURL)
        var message = ""
        do {
            let database = try home.open()
            _ = try database.plants()
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("damaged") || message.contains("not an SQLite database"), "got: \(message)")
        #expect(try Data(contentsOf: home.databaseURL) == damaged)
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        do {
            let database = try home.open()
            try database.writer.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99')") }
        }
        var message = ""
        do { _ = try home.open() } catch { message = "\(error)" }
        #expect(message.contains("newer PlantGuide"))
    }

    @Test(arguments: [
        "INSERT INTO plant (uuid, name, createdAt, updatedAt) VALUES ('00000000-0000-0000-0000-000000000009', '  ', '2026-01-01', '2026-01-01')",
        "INSERT INTO plant (uuid, name, createdAt, updatedAt) VALUES ('short', 'Fern', '2026-01-01', '2026-01-01')",
        "INSERT INTO plant (uuid, name, createdAt, updatedAt) VALUES ('00000000-0000-0000-0000-000000000009', NULL, '2026-01-01', '2026-01-01')",
        "INSERT INTO plant (uuid, name, acquiredOn, createdAt, updatedAt) VALUES ('00000000-0000-0000-0000-000000000009', 'Fern', '2026-02-30', '2026-01-01', '2026-01-01')",
        "INSERT INTO plant (uuid, name, createdAt, updatedAt) VALUES ('00000000-0000-0000-0000-000000000009', 'Fern', '2026-02-01', '2026-01-01')",
        "INSERT INTO careEvent (uuid, plantId, task, day, createdAt) VALUES ('00000000-0000-0000-0000-000000000009', 1, 'sing', '2026-01-01', '2026-01-01')",
        "INSERT INTO careEvent (uuid, plantId, task, day, createdAt) VALUES ('00000000-0000-0000-0000-000000000009', 999, 'water', '2026-01-01', '2026-01-01')",
        "INSERT INTO careEvent (uuid, plantId, task, day, createdAt) VALUES ('00000000-0000-0000-0000-000000000009', 1, 'water', 'yesterday', '2026-01-01')",
        "INSERT INTO careSchedule (plantId, task, growingDays) VALUES (1, 'water', 0)",
        "INSERT INTO careProfile (plantId, light, waterGrowingDays, waterWinterDays, humidity, minTemperature, maxTemperature, toxicToCats, toxicToDogs, toxicitySource, basis) VALUES (1, 'medium', 7, 14, 'medium', 30, 10, 0, 0, 'x', 'x')",
        "INSERT INTO photo (sha256, originalSHA256, mediaType, byteCount, createdAt) VALUES ('abc', 'abc', 'image/jpeg', 10, '2026-01-01')",
        "INSERT INTO plantPhoto (plantId, photoSHA256, addedAt) VALUES (1, '\(String(repeating: "a", count: 64))', '2026-01-01')",
        "INSERT INTO identification (uuid, source, predictions, uncertain, identifiedAt) VALUES ('00000000-0000-0000-0000-000000000009', 'onDevice', '{not json', 0, '2026-01-01')",
        "INSERT INTO identification (uuid, source, predictions, uncertain, identifiedAt) VALUES ('00000000-0000-0000-0000-000000000009', 'guess', '[]', 0, '2026-01-01')",
    ])
    func constraintsRejectBadRows(sql: String) throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        try database.addPlant(NewPlant(name: "Fern"), profile: .fixture(), now: Date())
        #expect(throws: DatabaseError.self) {
            try database.writer.write { db in try db.execute(sql: sql) }
        }
        #expect(try database.plantCount() == 1)
    }

    @Test func removingAPlantCascadesAndKeepsSharedPhotos() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let library = PhotoLibrary(directory: home.directory, encoder: .storingOriginal)
        let photo = try library.store(Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]), now: Date())
        let first = try database.addPlant(NewPlant(name: "A"), profile: .fixture(), photo: photo, now: Date())
        let second = try database.addPlant(NewPlant(name: "B"), profile: .fixture(), now: Date())
        try database.attachPhoto(photo, toPlant: second.id, now: Date())
        try database.logCare(plantId: first.id, task: .water, day: day("2026-01-01"), now: Date())
        #expect(try database.removePlant(id: first.id).isEmpty)
        #expect(try database.events().isEmpty)
        #expect(try database.allPhotos().count == 1)
        let orphans = try database.removePlant(id: second.id)
        #expect(orphans.map(\.sha256) == [photo.sha256])
        library.removeFiles(of: orphans, now: Date())
        #expect(!FileManager.default.fileExists(atPath: placedFile(library, photo).path))
        #expect(trashedCopies(library, photo).count == 1)
        #expect(throws: StoreError.self) { try database.removePlant(id: second.id) }
    }

    @Test func updatingAPlantKeepsItsIdentityAndMovesUpdatedAt() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let created = Date(timeIntervalSince1970: 1_780_000_000)
        var plant = try database.addPlant(NewPlant(name: "Fern", room: "Hall"), profile: .fixture(), now: created)
        let original = plant
        plant.room = "Bathroom"
        plant.uuid = "00000000-0000-0000-0000-00000000beef"
        let updated = try database.updatePlant(plant, now: created.addingTimeInterval(60))
        #expect(updated.uuid == original.uuid)
        #expect(try database.plant(id: plant.id)?.room == "Bathroom")
        #expect(try database.plant(id: plant.id)?.updatedAt == created.addingTimeInterval(60))
        plant.id = 999
        #expect(throws: StoreError.self) { try database.updatePlant(plant, now: created) }
        plant.id = original.id
        plant.name = " "
        #expect(throws: StoreError.self) { try database.updatePlant(plant, now: created) }
    }

    @Test func backupIsAConsistentCopyWhileInUse() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        for index in 0..<50 { try database.addPlant(NewPlant(name: "Plant \(index)"), profile: .fixture(), now: Date()) }
        let target = home.directory.appending("backup.sqlite")
        try database.backup(to: target)
        try database.addPlant(NewPlant(name: "After"), profile: .fixture(), now: Date())
        let copy = try CollectionDatabase.open(at: target)
        #expect(try copy.plantCount() == 50)
        #expect(try copy.integrityCheck() == ["ok"])
    }

    /// A backup is what people restore from: a source damaged in the middle is refused, and nothing is written.
    @Test func backupRefusesADamagedSource() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        try fillWithPlants(home)
        try damageTheMiddle(of: home)
        // A quick check passed an hour ago, so opening does not look at the pages: backup must.
        let marker = URL(fileURLWithPath: home.databaseURL.path + "-checked")
        try Data(String(Int(Date().timeIntervalSince1970) - 3600).utf8).write(to: marker)
        let target = home.directory.appending("backup.sqlite")
        var message = ""
        do {
            try home.open().backup(to: target)
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("damaged") && message.contains("no backup was written"), "got: \(message)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// An existing empty file is not silently turned into an empty collection.
    @Test func refusesAZeroByteFile() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        try Data().write(to: home.databaseURL)
        #expect {
            _ = try home.open()
        } throws: { error in
            "\(error)".contains("is empty (0 bytes)")
        }
        #expect(try Data(contentsOf: home.databaseURL).isEmpty)
    }

    /// Damage in the middle of the file, in pages no command reads first, is noticed at open by the periodic
    /// quick check, and the file is left as it was.
    @Test func openNoticesDamageInTheMiddleOfTheFile() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        try fillWithPlants(home)
        // A sound database passes the quick check and records it; a day later the next open checks again.
        _ = try home.open()
        let marker = URL(fileURLWithPath: home.databaseURL.path + "-checked")
        #expect(FileManager.default.fileExists(atPath: marker.path))
        try Data("0".utf8).write(to: marker)
        try damageTheMiddle(of: home)
        let damaged = try Data(contentsOf: home.databaseURL)
        #expect {
            _ = try home.open()
        } throws: { error in
            "\(error)".contains("damaged")
        }
        #expect(try Data(contentsOf: home.databaseURL) == damaged)
    }

    /// 400 plants with notes, checkpointed into the main file: enough pages that the middle holds plant data.
    private func fillWithPlants(_ home: TemporaryHome) throws {
        let database = try home.open()
        for index in 0..<400 {
            try database.addPlant(NewPlant(name: "Plant \(index)", notes: String(repeating: "n", count: 400)), profile: .fixture(), now: Date())
        }
        try database.checkpoint()
    }

    /// Overwrites 2 KB inside a page of plants in the middle of the file (one holding the notes, which only the plant
    /// table's pages hold), leaving the header and schema pages intact.
    private func damageTheMiddle(of home: TemporaryHome) throws {
        let bytes = try Data(contentsOf: home.databaseURL)
        let notes = Data(repeating: UInt8(ascii: "n"), count: 400)
        let middle = try #require(bytes.range(of: notes, in: bytes.count / 2..<bytes.count) ?? bytes.range(of: notes))
        let handle = try FileHandle(forWritingTo: home.databaseURL)
        try handle.seek(toOffset: UInt64((middle.lowerBound - bytes.startIndex) / 4096 * 4096 + 16))
        handle.write(Data(repeating: 0xA5, count: 2048))
        try handle.close()
    }
}
