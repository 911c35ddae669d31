import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideCLI

/// One run of `plantguide` has one context: its database is opened once, however many of its parts ask for it, and
/// every command that keeps records works on the database and household the run chose.
@Suite struct CommandContextTests {
    @Test func aRunOpensItsSQLiteFileOnceAndEveryPartSharesIt() async throws {
        let home = DataDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-open-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: home.url) }
        let context = CommandContext(directory: home, environment: [:])
        #expect(context.hasCollection == false)
        #expect(try context.existing() == nil)
        #expect(context.isOpen == false)
        // The parts of `identify --save` that ask: the Pl@ntNet state, the learned names, the statistics log, the collection.
        let stores = try (0..<4).map { _ in try context.open() }
        #expect(context.isOpen)
        let databases = stores.compactMap { $0 as? CollectionDatabase }
        #expect(databases.count == 4)
        #expect(Set(databases.map { ObjectIdentifier($0.writer) }).count == 1)
        // A write through one part is read by another at once: they are one database.
        let profile = CareProfile(
            light: .brightIndirect, waterGrowingDays: 7, waterWinterDays: 14, fertilizeGrowingDays: 30, mistDays: nil,
            repotDays: 730, pruneDays: nil, humidity: .medium, minTemperature: 16, maxTemperature: 29, toxicToCats: true,
            toxicToDogs: true, toxicitySource: "test", basis: "test"
        )
        let plant = try databases[0].addPlant(NewPlant(name: "Fern"), profile: profile, now: Date())
        #expect(try databases[3].plants().map(\.id) == [plant.id])
        #expect(context.hasCollection)

        // Another file (`--database sqlite:PATH`) is its own database, opened once by its own run's context.
        let other = home.url.appendingPathComponent("other.sqlite")
        let (paths, writers) = try await CommandContext.run(.sqlite(path: other.path), directory: home, environment: [:]) { chosen in
            let opened = try [chosen.open(), chosen.open()].compactMap { $0 as? CollectionDatabase }
            return (opened.map(\.path), Set(opened.map { ObjectIdentifier($0.writer) }).count)
        }
        #expect(paths == [other.path, other.path])
        #expect(writers == 1)
        // Naming the data directory's own file is the data directory's database.
        let named = try await CommandContext.run(
            .sqlite(path: home.appending(CollectionDatabase.fileName).path), directory: home, environment: [:]
        ) { chosen in chosen.choice }
        guard case .dataDirectory = named else {
            Issue.record("sqlite:<the data directory's file> chose \(named)")
            return
        }
    }

    /// `care check`, `care undo`, `care assign`, `care conditions`, `collection health remove`, `diagnose`,
    /// `notify schedule` and `household set` kept to the data directory's file and refused `--household` and
    /// `--database`; they take them now, as every other command that keeps records does.
    @Test func careCommandsActForTheHouseholdAndDatabaseChosen() throws {
        let runner = try collectionRunner()
        defer { runner.cleanUp() }
        let password = Data("a long passphrase\n".utf8)
        #expect(try runner.run(["user", "add", "alice"], input: password).status == 0)
        #expect(try runner.run(["user", "add", "dave", "--household", "Joneses"], input: password).status == 0)
        let fern = try runner.jsonObject(["collection", "add", "Boston fern", "--household", "Joneses", "--json"])
        let id = try #require(fern["id"] as? Int)

        let checked = try runner.run(["care", "check", "\(id)", "water", "--wet", "--household", "Joneses", "--json"])
        #expect(checked.status == 0, "\(checked.stderr)")
        // Household 1 has no such plant: the check went to the Joneses' collection, not the default one.
        let elsewhere = try runner.run(["care", "check", "\(id)", "water", "--wet"])
        #expect(elsewhere.status != 0 && !elsewhere.killedBySignal)
        #expect(elsewhere.stderr.contains("No plant with id \(id)"), "\(elsewhere.stderr)")
        let undone = try runner.run(["care", "undo", "\(id)", "--household", "Joneses"])
        #expect(undone.status == 0, "\(undone.stderr)")

        // `--database` names another file: it is created there, and the data directory's collection is untouched.
        let other = runner.home.appendingPathComponent("other.sqlite")
        let set = try runner.run(["household", "set", "--hemisphere", "south", "--database", "sqlite:\(other.path)"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(FileManager.default.fileExists(atPath: other.path))
    }
}
