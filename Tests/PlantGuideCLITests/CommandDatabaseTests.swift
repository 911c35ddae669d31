import Foundation
import PlantGuideCore
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideCLI

/// One run of `plantguide` opens its SQLite file once, however many of its parts ask for the store.
@Suite struct CommandDatabaseTests {
    @Test func aRunOpensItsSQLiteFileOnceAndEveryPartSharesIt() async throws {
        let home = DataDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-open-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: home.url) }
        #expect(CommandDatabase.hasCollection(in: home) == false)
        let before = CommandDatabase.fileOpenCount
        // The parts of `identify --save` that ask: the Pl@ntNet state, the learned names, the statistics log, the collection.
        let stores = try (0..<4).map { _ in try CommandDatabase.open(in: home) }
        #expect(CommandDatabase.fileOpenCount - before == 1)
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
        #expect(CommandDatabase.hasCollection(in: home))

        // Another file (`--database sqlite:PATH`) is its own database, opened once too.
        let other = home.url.appendingPathComponent("other.sqlite")
        let chosen = try await CommandDatabase.run(.sqlite(path: other.path), directory: home) {
            try [CommandDatabase.open(in: home), CommandDatabase.open(in: home)].compactMap { ($0 as? CollectionDatabase)?.path }
        }
        #expect(chosen == [other.path, other.path])
        #expect(CommandDatabase.fileOpenCount - before == 2)
    }
}
