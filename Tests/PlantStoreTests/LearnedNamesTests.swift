import Foundation
import GRDB
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// Names learned from Pl@ntNet, in a real SQLite file.
@Suite struct LearnedNamesTests {
    private let learnedAt = Date(timeIntervalSince1970: 1_795_000_000.123)

    @Test func survivesARestartAndIsFoundUnderAnySpelling() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        do {
            let database = try home.open()
            try database.recordLearnedSpecies([
                LearnedSpecies(binomial: "Monstera deliciosa", language: "en", commonNames: ["Swiss cheese plant", "Ceriman"],
                               family: "Araceae", gbifId: "2868241", powoId: "urn:lsid:ipni.org:names:87334-1", learnedAt: learnedAt),
                LearnedSpecies(binomial: "Monstera deliciosa", language: "fr", commonNames: ["Faux philodendron"],
                               family: "Araceae", learnedAt: learnedAt.addingTimeInterval(60)),
            ])
        }
        // A new connection, as after a restart, reading under another spelling of the name.
        let reopened = try home.open()
        let records = try await reopened.learnedNames.lookup(["Monstera deliciosa Liebm."])["Monstera deliciosa Liebm."] ?? []
        #expect(records.map(\.language) == ["fr", "en"])
        let english = try #require(records.first { $0.language == "en" })
        #expect(english.commonNames == ["Swiss cheese plant", "Ceriman"])
        #expect(english.gbifId == "2868241")
        #expect(english.powoId == "urn:lsid:ipni.org:names:87334-1")
        #expect(english.family == "Araceae")
        #expect(abs(english.learnedAt.timeIntervalSince(learnedAt)) < 0.001)
        #expect(try reopened.learnedSpecies(named: "Monstera adansonii").isEmpty)
    }

    @Test func aNewerAnswerReplacesTheNamesButKeepsKnownIds() async throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        try database.recordLearnedSpecies([LearnedSpecies(
            binomial: "Bellis perennis", language: "en", commonNames: ["Daisy"], family: "Asteraceae", gbifId: "3117424",
            learnedAt: learnedAt
        )])
        try await database.learnedNames.record([LearnedSpecies(
            binomial: "Bellis perennis", language: "en", commonNames: ["Lawn daisy", "Daisy"], family: nil, gbifId: nil,
            learnedAt: learnedAt.addingTimeInterval(3600)
        )])
        let records = try database.learnedSpecies(named: "bellis PERENNIS")
        #expect(records.count == 1)
        #expect(records.first?.commonNames == ["Lawn daisy", "Daisy"])
        #expect(records.first?.gbifId == "3117424")
        #expect(records.first?.family == "Asteraceae")
        #expect(records.first.map { abs($0.learnedAt.timeIntervalSince(learnedAt) - 3600) < 0.001 } == true)
    }

    @Test func anAnswerWithoutNamesKeepsTheKnownOnesAndHybridSignsDoNotMatter() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        try database.recordLearnedSpecies([LearnedSpecies(
            binomial: "Fragaria × ananassa", language: "en", commonNames: ["Garden strawberry"], learnedAt: learnedAt
        )])
        try database.recordLearnedSpecies([LearnedSpecies(
            binomial: "Fragaria ×ananassa", language: "en", commonNames: [], family: "Rosaceae", gbifId: "3029779",
            learnedAt: learnedAt.addingTimeInterval(60)
        )])
        let records = try database.learnedSpecies(named: "Fragaria x ananassa Duchesne")
        #expect(records.count == 1)
        #expect(records.first?.commonNames == ["Garden strawberry"])
        #expect(records.first?.family == "Rosaceae")
        #expect(records.first?.gbifId == "3029779")
        #expect(try database.learnedSpecies(named: "Fragaria vesca").isEmpty)
    }

    @Test func theSchemaRefusesMalformedRows() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        #expect(throws: (any Error).self) {
            try database.writer.write { db in
                try db.execute(sql: """
                    INSERT INTO learnedSpecies (speciesKey, language, binomial, commonNames, learnedAt)
                    VALUES ('Bellis Perennis', 'en', 'Bellis perennis', 'not json', '2026-01-01 00:00:00.000')
                    """)
            }
        }
    }
}
