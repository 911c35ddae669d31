import Foundation
import PlantGuideTestSupport
import Testing

@Suite struct CollectionCommandTests {
    @Test func addPrintsTheNewPlantAndLinksCatalogNames() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let plant = try runner.jsonObject(["collection", "add", "Snake plant", "--room", "Bedroom", "--nickname", "Spike", "--json"])
        #expect(plant["id"] as? Int == 1)
        #expect(plant["nickname"] as? String == "Spike")
        #expect(plant["species"] as? String == "Dracaena trifasciata")
        #expect(plant["room"] as? String == "Bedroom")
        #expect((plant["uuid"] as? String)?.count == 36)
        let bySpecies = try runner.jsonObject(["collection", "add", "--species", "Monstera deliciosa", "--json"])
        #expect(bySpecies["name"] as? String == "Monstera deliciosa")
        #expect(bySpecies["nickname"] is NSNull)
        let free = try runner.jsonObject(["collection", "add", "Grandma's", "cutting", "--json"])
        #expect(free["name"] as? String == "Grandma's cutting")
        #expect(free["species"] is NSNull)
        // Text output names the plant.
        let text = try runner.run(["collection", "add", "Boston fern", "--room", "Bathroom"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Boston fern"))
    }

    /// Former and trade names people type are resolved to the catalog entry, and the command says so; so do a CSV
    /// import and `search`.
    @Test func formerNamesAreResolvedAndSaidSo() throws {
        var runner = try collectionRunner()
        runner.environment["PLANTGUIDE_CATALOG"] = ""  // the bundled catalog, with its synonyms table
        defer { runner.cleanUp() }
        let added = try runner.run(["collection", "add", "Calathea orbifolia", "--room", "Bathroom"])
        #expect(added.status == 0)
        #expect(added.stdout.contains("Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea)."))
        #expect(!added.stdout.contains("Not in the catalog"))
        let bySpecies = try runner.jsonObject(["collection", "add", "--species", "Sansevieria trifasciata", "--json"])
        #expect(bySpecies["species"] as? String == "Dracaena trifasciata")

        let csv = runner.home.appendingPathComponent("plants.csv")
        try Data("name,room\nScindapsus aureus,Hall\nSchefflera arboricola,Hall\n".utf8).write(to: csv)
        let imported = try runner.run(["import", csv.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Scindapsus aureus is now Epipremnum aureum"))
        #expect(imported.stdout.contains("Schefflera arboricola is now Heptapleurum arboricola"))
        let species = try runner.jsonArray(["collection", "list", "--json"]).compactMap { $0["species"] as? String }
        #expect(Set(species) == ["Goeppertia orbifolia", "Dracaena trifasciata", "Epipremnum aureum", "Heptapleurum arboricola"])

        let search = try runner.run(["search", "senecio rowleyanus", "--limit", "1"])
        #expect(search.stdout.contains("Senecio rowleyanus is now Curio rowleyanus") && search.stdout.contains("1. Curio rowleyanus"))
    }

    @Test func addRefusesBadInput() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let nothing = try runner.run(["collection", "add"])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("name or --species"))
        let unknown = try runner.run(["collection", "add", "--species", "Notaplant whatsoever"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("not in the catalog"))
        let badDate = try runner.run(["collection", "add", "Fern", "--acquired", "yesterday"])
        #expect(badDate.status != 0)
        let missingPhoto = try runner.run(["collection", "add", "Fern", "--photo", "/nonexistent/photo.jpg"])
        #expect(missingPhoto.status != 0)
        #expect(try runner.jsonArray(["collection", "list", "--json"]).isEmpty)
    }

    /// Every command that takes a plant's id reads it the same way (`12`, `#12`) and refuses anything else with one
    /// sentence that says what an id is, before the database is opened.
    @Test(arguments: [
        ["collection", "show"], ["collection", "remove"], ["collection", "photo", "list"], ["care", "snooze"],
    ])
    func plantIDsAreReadOneWay(command: [String]) throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let tail = command.first == "care" ? ["water", "--days", "2"] : []
        let wrong = try runner.run(command + ["plant-one"] + tail)
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("'plant-one' is not a plant id; ids are whole numbers"), "\(wrong.stderr)")
        let unknown = try runner.run(command + ["#42"] + tail)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("42"), "\(unknown.stderr)")
    }

    @Test func addRefusesTextOverTheLimits() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let nickname = try runner.run(["collection", "add", "Monstera", "--nickname", String(repeating: "n", count: 101)])
        #expect(nickname.status != 0)
        #expect(nickname.stderr.contains("The nickname is longer than 100 characters."))
        let notes = try runner.run(["collection", "add", "Monstera", "--notes", String(repeating: "n", count: 2_001)])
        #expect(notes.status != 0)
        #expect(notes.stderr.contains("The note is longer than 2000 characters."))
        let atLimit = try runner.jsonObject(["collection", "add", "Monstera", "--room", String(repeating: "r", count: 100), "--json"])
        #expect((atLimit["room"] as? String)?.count == 100)
    }

    @Test func listFiltersByRoomAndShowGivesEverything() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let photo = runner.home.appendingPathComponent("leaf.png")
        try fakePhoto(seed: 1).write(to: photo)
        _ = try runner.jsonObject(["collection", "add", "Monstera", "--room", "Living room", "--photo", photo.path, "--json"])
        _ = try runner.jsonObject(["collection", "add", "Boston fern", "--room", "Bathroom", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Moth orchid", "--room", "living room", "--json"])
        let all = try runner.jsonArray(["collection", "list", "--json"])
        #expect(all.compactMap { $0["room"] as? String } == ["Bathroom", "Living room", "living room"])
        let living = try runner.jsonArray(["collection", "list", "--room", "Living Room", "--json"])
        #expect(Set(living.compactMap { $0["name"] as? String }) == ["Monstera", "Moth orchid"])
        let text = try runner.run(["collection", "list"])
        #expect(text.stdout.contains("3 plants"))

        let details = try runner.jsonObject(["collection", "show", "1", "--json"])
        let profile = try #require(details["careProfile"] as? [String: Any])
        #expect(profile["basis"] as? String == "genus Monstera")
        #expect(profile["toxicToCats"] as? Bool == true)
        let photos = try #require(details["photos"] as? [[String: Any]])
        #expect(photos.count == 1)
        let path = try #require(photos.first?["path"] as? String)
        let stored = try #require(FileManager.default.contents(atPath: path))
        // Re-encoded as JPEG at full size, and the GPS text of the original is gone.
        #expect(stored.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(photos.first?["mediaType"] as? String == "image/jpeg")
        #expect(photos.first?["width"] as? Int == 300 && photos.first?["height"] as? Int == 200)
        #expect(stored.range(of: Data("GPSPosition".utf8)) == nil)
        #expect(fakePhoto(seed: 1).range(of: Data("GPSPosition".utf8)) != nil)
        let thumbnail = try #require(FileManager.default.contents(atPath: photos.first?["thumbnailPath"] as? String ?? ""))
        #expect(thumbnail.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(thumbnail.count < stored.count)
        let schedule = try #require(details["schedule"] as? [[String: Any]])
        #expect(schedule.compactMap { $0["task"] as? String } == ["water", "fertilize", "repot", "mist", "prune"])
        let shown = try runner.run(["collection", "show", "1"])
        #expect(shown.stdout.contains("Monstera") && shown.stdout.contains("Schedule"))
        let missing = try runner.run(["collection", "show", "42"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("No plant with id 42"))
        #expect(try runner.run(["collection", "show", "abc"]).status != 0)
    }

    @Test func photosAreSharedAndRemovedWithTheirLastPlant() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let photo = runner.home.appendingPathComponent("shared.png")
        try fakePhoto(seed: 7).write(to: photo)
        _ = try runner.jsonObject(["collection", "add", "Monstera", "--json"])
        _ = try runner.jsonObject(["collection", "add", "Golden pothos", "--json"])
        let first = try runner.jsonObject(["collection", "photo", "add", "1", photo.path, "--json"])
        let second = try runner.jsonObject(["collection", "photo", "add", "2", photo.path, "--json"])
        #expect(first["sha256"] as? String == second["sha256"] as? String)
        let stored = try #require(first["path"] as? String)
        let photoFiles = try FileManager.default.subpathsOfDirectory(atPath: runner.home.appendingPathComponent("photos").path)
            .filter { $0.hasSuffix(".jpg") }
        #expect(photoFiles.filter { !$0.hasPrefix("thumbnails") }.count == 1)
        #expect(photoFiles.filter { $0.hasPrefix("thumbnails") }.count == 1)
        #expect(try runner.run(["collection", "photo", "add", "9", photo.path]).status != 0)
        let notAnImage = runner.home.appendingPathComponent("notes.png")
        try Data("just text".utf8).write(to: notAnImage)
        let refused = try runner.run(["collection", "photo", "add", "1", notAnImage.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Photo"))

        let removed = try runner.jsonObject(["collection", "remove", "1", "--json"])
        #expect((removed["removed"] as? [String: Any])?["name"] as? String == "Monstera")
        #expect(FileManager.default.fileExists(atPath: stored))
        #expect(try runner.run(["collection", "remove", "2"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: stored))
        #expect(try runner.run(["collection", "remove", "2"]).status != 0)
        #expect(try runner.jsonArray(["collection", "list", "--json"]).isEmpty)
    }

    @Test func photosAreListedGivenACoverAndRemoved() throws {
        var runner = try collectionRunner()
        defer { runner.cleanUp() }
        _ = try runner.jsonObject(["collection", "add", "Monstera", "--json"])
        var added: [String] = []
        for seed in [UInt8(1), 2] {
            runner.environment["PLANTGUIDE_NOW"] = "2026-06-0\(seed)T09:00:00Z"
            let photo = runner.home.appendingPathComponent("leaf-\(seed).png")
            try fakePhoto(seed: seed).write(to: photo)
            added.append(try #require(try runner.jsonObject(["collection", "photo", "add", "1", photo.path, "--json"])["sha256"] as? String))
        }
        let listed = try runner.jsonArray(["collection", "photo", "list", "1", "--json"])
        #expect(listed.map { $0["sha256"] as? String } == added)
        #expect(listed.map { $0["cover"] as? Bool } == [false, true])
        let text = try runner.run(["collection", "photo", "list", "1"])
        #expect(text.stdout.contains(String(added[0].prefix(12))) && text.stdout.contains("cover"))

        let cover = try runner.run(["collection", "photo", "set-cover", "1", String(added[0].prefix(8))])
        #expect(cover.status == 0, "\(cover.stderr)")
        #expect(try runner.jsonArray(["collection", "photo", "list", "1", "--json"]).map { $0["cover"] as? Bool } == [true, false])
        #expect(try runner.run(["collection", "photo", "set-cover", "1", "zz"]).status != 0)
        #expect(try runner.run(["collection", "photo", "set-cover", "1", "000000"]).status != 0)

        let path = try #require(listed.first?["path"] as? String)
        let removed = try runner.jsonObject(["collection", "photo", "remove", "1", added[0], "--json"])
        #expect(removed["removed"] as? String == added[0])
        #expect(!FileManager.default.fileExists(atPath: path))
        let left = try runner.jsonArray(["collection", "photo", "list", "1", "--json"])
        #expect(left.map { $0["sha256"] as? String } == [added[1]])
        #expect(left.first?["cover"] as? Bool == true)
        #expect(try runner.run(["collection", "photo", "remove", "1", added[0]]).status != 0)
        #expect(try runner.run(["collection", "photo", "list", "9"]).status != 0)
    }

    @Test func trefleRefinesTheProfileWhenConfiguredAndNeverBlocksWhenDown() throws {
        var runner = try collectionRunner()
        defer { runner.cleanUp() }
        let stub = try TrefleStub()
        defer { stub.stop() }
        runner.environment["TREFLE_TOKEN"] = TrefleStub.token
        runner.environment["PLANTGUIDE_TREFLE_URL"] = stub.baseURL.absoluteString
        _ = try runner.jsonObject(["collection", "add", "Monstera", "--json"])
        let enriched = try #require(try runner.jsonObject(["collection", "show", "1", "--json"])["careProfile"] as? [String: Any])
        #expect(enriched["basis"] as? String == "genus Monstera + Trefle")
        #expect(enriched["minTemperature"] as? Int == 13)
        stub.behaviour = .down
        let outcome = try runner.run(["collection", "add", "Monstera", "--nickname", "Two", "--json"])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.contains("Trefle is unavailable"))
        #expect(!outcome.stderr.contains(TrefleStub.token))
        let plain = try #require(try runner.jsonObject(["collection", "show", "2", "--json"])["careProfile"] as? [String: Any])
        #expect(plain["basis"] as? String == "genus Monstera")
    }

    @Test func aForeignFileAtTheDatabasePathIsAnErrorAndIsKept() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let path = runner.home.appendingPathComponent("collection.sqlite")
        let junk = Data("not a database".utf8)
        try junk.write(to: path)
        let outcome = try runner.run(["collection", "list"])
        #expect(outcome.status != 0)
        #expect(!outcome.killedBySignal)
        #expect(outcome.stderr.contains("not an SQLite database"))
        #expect(FileManager.default.contents(atPath: path.path) == junk)
    }
}
