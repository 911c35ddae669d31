import Foundation
import PlantGuideTestSupport
import Testing

@Suite struct TransferCommandTests {
    @Test func exportThenImportIsLosslessAndIdempotent() throws {
        let source = try collectionRunner()
        defer { source.cleanUp() }
        let photo = source.home.appendingPathComponent("p.png")
        try fakePhoto(seed: 3).write(to: photo)
        _ = try source.jsonObject(["collection", "add", "Monstera", "--room", "Hall", "--nickname", "Monty", "--photo", photo.path,
                                   "--acquired", "2025-04-01", "--notes", "from the market, \"big\"", "--json"])
        _ = try source.jsonObject(["collection", "add", "Boston fern", "--json"])
        _ = try source.run(["care", "done", "1", "water", "--note", "rain water"])
        _ = try source.run(["care", "snooze", "2", "fertilize", "--days", "3"])
        let archive = source.home.appendingPathComponent("out.zip")
        let exported = try source.jsonObject(["export", archive.path, "--json"])
        #expect(exported["plants"] as? Int == 2)
        #expect(exported["photos"] as? Int == 1)

        let target = try collectionRunner()
        defer { target.cleanUp() }
        let summary = try target.jsonObject(["import", archive.path, "--json"])
        #expect(summary["plantsAdded"] as? Int == 2)
        #expect(summary["eventsAdded"] as? Int == 1)
        #expect(summary["photosAdded"] as? Int == 1)
        let again = try target.jsonObject(["import", archive.path, "--json"])
        #expect(again["plantsAdded"] as? Int == 0)
        #expect(again["plantsAlreadyPresent"] as? Int == 2)
        #expect(again["eventsAdded"] as? Int == 0)
        #expect(try target.jsonArray(["collection", "list", "--json"]).count == 2)

        // Export the imported collection: the documented JSON is identical but for the export time.
        let roundTrip = target.home.appendingPathComponent("again.zip")
        _ = try target.jsonObject(["export", roundTrip.path, "--json"])
        #expect(try collectionJSON(in: archive, runner: source) == collectionJSON(in: roundTrip, runner: target))
        let original = try #require(try source.jsonObject(["collection", "show", "1", "--json"])["photos"] as? [[String: Any]])
        // Import order follows UUIDs, so find the plant's new id by name.
        let monstera = try #require(try target.jsonArray(["collection", "list", "--json"]).first { $0["name"] as? String == "Monstera" })
        let newId = try #require(monstera["id"] as? Int)
        let copied = try #require(try target.jsonObject(["collection", "show", "\(newId)", "--json"])["photos"] as? [[String: Any]])
        let originalFile = FileManager.default.contents(atPath: original.first?["path"] as? String ?? "")
        #expect(originalFile != nil)
        #expect(FileManager.default.contents(atPath: copied.first?["path"] as? String ?? "") == originalFile)
        #expect(copied.first?["thumbnailPath"] is String)
    }

    @Test func importRefusesDamagedArchives() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let bogus = runner.home.appendingPathComponent("bogus.zip")
        try Data([0x50, 0x4B, 0x03, 0x04, 0, 0, 0, 0]).write(to: bogus)
        let outcome = try runner.run(["import", bogus.path])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("archive"))
        let binary = runner.home.appendingPathComponent("blob.csv")
        try Data([0xFF, 0xFE, 0x00, 0xD8]).write(to: binary)
        #expect(try runner.run(["import", binary.path]).status != 0)
    }

    @Test func csvImportMatchesTheCatalogAndReportsTheRest() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let csv = runner.home.appendingPathComponent("plants.csv")
        try "name,room,nickname\nMonstera deliciosa,Hall,Monty\n\"Snake plant\",\"Bed, room\",\nMy mystery plant,Hall,\nBoston fern,,Fernie\n"
            .write(to: csv, atomically: true, encoding: .utf8)
        let report = try runner.jsonObject(["import", csv.path, "--json"])
        let added = try #require(report["added"] as? [[String: Any]])
        #expect(added.compactMap { $0["species"] as? String } == ["Monstera deliciosa", "Dracaena trifasciata", "Nephrolepis exaltata"])
        #expect(added[1]["room"] as? String == "Bed, room")
        let unmatched = try #require(report["unmatched"] as? [[String: Any]])
        #expect(unmatched.count == 1)
        #expect(unmatched.first?["line"] as? Int == 4)
        #expect(unmatched.first?["name"] as? String == "My mystery plant")
        let again = try runner.jsonObject(["import", csv.path, "--json"])
        #expect(again["alreadyPresent"] as? Int == 3)
        #expect(try runner.jsonArray(["collection", "list", "--json"]).count == 3)
    }

    @Test func backupWritesAConsistentCopy() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Monstera", "--json"])
        let file = runner.home.appendingPathComponent("backup.sqlite")
        let outcome = try runner.jsonObject(["backup", file.path, "--json"])
        #expect(outcome["file"] as? String == file.path)
        #expect(outcome["plants"] as? Int == 1)
        #expect(outcome["bytes"] as? Int ?? 0 > 0)
        let header = try #require(FileManager.default.contents(atPath: file.path)?.prefix(16))
        #expect(header == Data("SQLite format 3\0".utf8))
        // The copy is a working collection.
        var restored = try collectionRunner()
        defer { restored.cleanUp() }
        try FileManager.default.copyItem(at: file, to: restored.home.appendingPathComponent("collection.sqlite"))
        restored.environment["PLANTGUIDE_HOME"] = restored.home.path
        #expect(try restored.jsonArray(["collection", "list", "--json"]).compactMap { $0["name"] as? String } == ["Monstera"])
        #expect(try runner.run(["backup", "/nonexistent-dir/x.sqlite"]).status != 0)
    }

    /// `collection.json` from an archive, without its export time, via `unzip -p`.
    private func collectionJSON(in archive: URL, runner: CommandLineRunner) throws -> NSDictionary {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('collection.json'))", archive.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object.removeValue(forKey: "exportedAt")
        return object as NSDictionary
    }
}
