import CatalogBuilding
import Foundation
import Testing

/// Builds small catalogs in a temporary directory to check that each kind of data mistake is reported as
/// the right `CatalogBuildError`, with the file and line.
@Suite struct CatalogBuilderErrorTests {
    /// A tiny, valid set of inputs; each test breaks one file.
    struct Fixture {
        var grin = ["Aloe vera", "Aloe arborescens", "Kalanchoe x houghtonii", "Sansevieria trifasciata"]
        var genera = [
            "Aloe\tAsphodelaceae\tSucculent\tsucculent leaf rosettes",
            "Dracaena\tAsparagaceae\tTropical Foliage\tcane and rosette foliage plants",
            "Kalanchoe\tCrassulaceae\tSucculent\tsucculent leaves",
        ]
        var plants = [
            "Aloe vera\tAloe Vera; Medicinal Aloe\t",
            "Aloe 'Christmas Carol'\t\t",
            "Dracaena trifasciata\tSnake Plant\tSucculent",
            "Kalanchoe × houghtonii\tMother of Millions\t",
        ]
        var exceptions = ["Dracaena trifasciata\tformerly Sansevieria trifasciata; GRIN lists the old name"]
        var synonyms = ["Sansevieria trifasciata\tDracaena trifasciata\tformer\tTakawira-Nyenya et al. 2018"]

        func write() throws -> URL {
            let root = FileManager.default.temporaryDirectory
                .appending(path: "catalog-fixture-\(UUID().uuidString)", directoryHint: .isDirectory)
            let files = [
                CatalogPaths.configuration: """
                    {"source_date": "2026-11-21", "sources": [{"name": "Test", "url": "https://example.org",
                    "licence": "public domain", "use": "fixture"}]}
                    """,
                CatalogPaths.grinNames: grin.map { $0 + "\r\n" }.joined(),
                CatalogPaths.genera: (["genus\tfamily\tcategory\trule"] + genera).joined(separator: "\n") + "\n",
                CatalogPaths.plants: (["scientific_name\tcommon_names\tcategory"] + plants)
                    .joined(separator: "\n") + "\n",
                CatalogPaths.exceptions: (["scientific_name\treason"] + exceptions).joined(separator: "\n") + "\n",
                CatalogPaths.synonyms: (["name\taccepted\tkind\tsource"] + synonyms).joined(separator: "\n") + "\n",
            ]
            for (path, contents) in files {
                let url = root.appending(path: path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: url)
            }
            return root
        }
    }

    private func load(_ fixture: Fixture) throws -> Catalog {
        let root = try fixture.write()
        defer { try? FileManager.default.removeItem(at: root) }
        return try CatalogBuilder(sourcesDirectory: root).load()
    }

    /// The error loading `fixture` throws, or `nil` if it loads.
    private func error(loading fixture: Fixture) throws -> CatalogBuildError? {
        let root = try fixture.write()
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            _ = try CatalogBuilder(sourcesDirectory: root).load()
            return nil
        } catch {
            return error
        }
    }

    private func location(line: Int) -> CatalogLocation {
        CatalogLocation(file: CatalogPaths.plants, line: line)
    }

    @Test func validFixtureBuilds() throws {
        let catalog = try load(Fixture())
        #expect(catalog.entries.map(\.scientificName)
            == ["Aloe 'Christmas Carol'", "Aloe vera", "Dracaena trifasciata", "Kalanchoe × houghtonii"])
        #expect(catalog.entries.first { $0.name.genus == "Dracaena" }?.category == .succulent)
        #expect(catalog.entries.first { $0.name.genus == "Aloe" }?.family == "Asphodelaceae")
    }

    @Test func synonymsNameAnEntryAndAreWrittenToTheResource() throws {
        let catalog = try load(Fixture())
        let synonym = try #require(catalog.synonyms.first)
        #expect(synonym.name.text == "Sansevieria trifasciata" && synonym.accepted == "Dracaena trifasciata" && synonym.kind == .former)
        let resource = try JSONSerialization.jsonObject(with: CatalogBuilder.resource(for: catalog)) as? [String: Any]
        let written = try #require((resource?["synonyms"] as? [[String: String]])?.first)
        #expect(written == ["name": "Sansevieria trifasciata", "accepted": "Dracaena trifasciata", "kind": "former",
                            "source": "Takawira-Nyenya et al. 2018"])
    }

    @Test(arguments: [
        ("Sansevieria trifasciata\tDracaena draco\tformer\tx", "is not a catalog entry"),
        ("Aloe vera\tDracaena trifasciata\tformer\tx", "is a catalog entry itself"),
        ("Sansevieria trifasciata\tDracaena trifasciata\tnickname\tx", "kind 'nickname'"),
        ("Sansevieria trifasciata\tDracaena trifasciata\tformer\t", "source of the synonym is empty"),
        ("Sansevieria trifasciata\tDracaena trifasciata\tformer", "malformed"),
    ])
    func badSynonymRowsAreReported(_ row: String, _ reason: String) throws {
        var fixture = Fixture()
        fixture.synonyms = [row]
        let reported = try #require(try error(loading: fixture))
        #expect(reported.description.contains(reason), "\(reported)")
        #expect(reported.description.contains("\(CatalogPaths.synonyms):2"), "\(reported)")
    }

    @Test func aSynonymListedTwiceIsReported() throws {
        var fixture = Fixture()
        fixture.synonyms.append("Sansevieria trifasciata\tDracaena trifasciata\ttrade\tx")
        guard case let .duplicateEntry(_, location, firstSeen) = try error(loading: fixture) else {
            Issue.record("expected a duplicate entry error")
            return
        }
        #expect(location.line == 3 && firstSeen.line == 2)
    }

    @Test func unknownGenusIsReported() throws {
        var fixture = Fixture()
        fixture.plants.append("Haworthia cooperi\t\t")
        #expect(try error(loading: fixture) == .unknownGenus("Haworthia", location(line: 6)))
    }

    @Test func unknownCategoryIsReported() throws {
        var fixture = Fixture()
        fixture.plants[0] = "Aloe vera\tAloe Vera\tShrub"
        #expect(try error(loading: fixture) == .unknownCategory("Shrub", location(line: 2)))
    }

    @Test func binomialMissingFromGRINAndExceptionsIsReported() throws {
        var fixture = Fixture()
        fixture.plants.append("Aloe veraa\t\t")
        #expect(try error(loading: fixture) == .unknownBinomial("Aloe veraa", location(line: 6)))
    }

    @Test(arguments: ["Aloe 'christmas carol'", "Aloe \u{2018}Christmas Carol\u{2019}", "Kalanchoe x houghtonii"])
    func duplicatesAreReportedIgnoringCaseQuotesAndHybridSign(_ duplicate: String) throws {
        var fixture = Fixture()
        fixture.plants.append("\(duplicate)\t\t")
        guard case let .duplicateEntry(_, location, firstSeen) = try error(loading: fixture) else {
            Issue.record("expected a duplicate entry error")
            return
        }
        #expect(location == self.location(line: 6))
        #expect(firstSeen.line == 3 || firstSeen.line == 5)
    }

    @Test func categoryOverrideAndHybridSignAreNormalised() throws {
        var fixture = Fixture()
        fixture.plants[3] = "Kalanchoe x houghtonii\tMother of Millions\tFlowering Houseplant"
        let entry = try #require(try load(fixture).entries.last)
        #expect(entry.scientificName == "Kalanchoe × houghtonii")
        #expect(entry.category == .floweringHouseplant)
        #expect(entry.overridesGenusCategory)
    }

    @Test func staleExceptionIsReported() throws {
        var fixture = Fixture()
        fixture.plants.append("Aloe arborescens\tKrantz Aloe\t")
        fixture.exceptions.append("Aloe arborescens\tnot really needed")
        let expected = CatalogBuildError.staleException(
            "Aloe arborescens", CatalogLocation(file: CatalogPaths.exceptions, line: 3))
        #expect(try error(loading: fixture) == expected)
    }

    @Test func unusedExceptionAndGenusAreReported() throws {
        var fixture = Fixture()
        fixture.exceptions.append("Aloe nonexistens\tlisted but never used by a plant")
        #expect(try error(loading: fixture)
            == .unusedException("Aloe nonexistens", CatalogLocation(file: CatalogPaths.exceptions, line: 3)))

        fixture = Fixture()
        fixture.genera.append("Haworthia\tAsphodelaceae\tSucculent\twindowed succulent rosettes")
        #expect(try error(loading: fixture)
            == .unusedGenus("Haworthia", CatalogLocation(file: CatalogPaths.genera, line: 5)))
    }

    @Test func categoryRepeatingTheGenusDefaultIsRejected() throws {
        var fixture = Fixture()
        fixture.plants[0] = "Aloe vera\tAloe Vera\tSucculent"
        guard case let .malformedRow(location, _) = try error(loading: fixture) else {
            Issue.record("expected a malformed row")
            return
        }
        #expect(location == self.location(line: 2))
    }

    @Test func malformedRowIsReportedWithItsLine() throws {
        var fixture = Fixture()
        fixture.plants.append("Aloe arborescens")
        guard case let .malformedRow(location, _) = try error(loading: fixture) else {
            Issue.record("expected a malformed row")
            return
        }
        #expect(location == self.location(line: 6))
    }

    @Test func errorDescriptionNamesFileAndLine() {
        let error = CatalogBuildError.unknownGenus("Haworthia", location(line: 6))
        #expect(error.description.hasPrefix("Data/catalog/plants.tsv:6: "))
    }
}
