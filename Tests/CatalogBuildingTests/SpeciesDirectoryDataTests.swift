import CatalogBuilding
import Foundation
import Testing

/// Checks the committed species directory against a fresh build and against the coverage it promises.
@Suite struct SpeciesDirectoryDataTests {
    static let root = CatalogDataTests.packageRoot

    static let built: Result<BuiltSpeciesDirectory, CatalogBuildError> = {
        do throws(CatalogBuildError) {
            let catalog = try CatalogBuilder(sourcesDirectory: root).load()
            return .success(try SpeciesDirectoryBuilder(sourcesDirectory: root).load(catalog: catalog))
        } catch {
            return .failure(error)
        }
    }()

    let directory: BuiltSpeciesDirectory

    init() throws {
        directory = try Self.built.get()
    }

    @Test func committedResourceMatchesAFreshBuild() throws {
        let committed = try Data(contentsOf: Self.root.appending(path: CatalogPaths.speciesResource))
        #expect(committed == (try SpeciesDirectoryBuilder.resource(for: directory)),
                "run `swift run plantguide-catalog-build` and commit the resource")
    }

    @Test func everyClassOnceInOrder() {
        #expect(directory.classes.count == 1081)
        #expect(directory.classes.map(\.index) == Array(0..<1081))
        #expect(Set(directory.classes.map(\.speciesId)).count == 1081)
    }

    /// The issue's targets: family for every class, a species-level English name for at least half, and a
    /// species- or genus-level one for at least 98 %.
    @Test func coverageMeetsTheTargets() {
        let coverage = directory.coverage
        #expect(coverage.withFamily == coverage.classes)
        #expect(Double(coverage.speciesLevelEnglish) >= 0.5 * Double(coverage.classes), "\(coverage.lines)")
        #expect(Double(coverage.anyEnglish) >= 0.98 * Double(coverage.classes), "\(coverage.lines)")
        #expect(coverage.binomials == 1019)
        #expect(coverage.genera == 303)
    }

    @Test func familiesAreCurrent() throws {
        let text = try String(contentsOf: Self.root.appending(path: CatalogPaths.speciesFamilies), encoding: .utf8)
        let outdated = Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst()
            .compactMap { $0.split(separator: "\t").first.map(String.init) })
        #expect(outdated.contains("Asclepiadaceae"))
        #expect(outdated.contains("Valerianaceae"))
        let used = Set(directory.classes.map(\.family))
        #expect(used.isDisjoint(with: outdated), "\(used.intersection(outdated))")
        #expect(used.allSatisfy { $0.hasSuffix("aceae") })
    }

    @Test func genusLevelNamesAreMarkedAndCatalogNamesWin() throws {
        for item in directory.classes {
            switch item.commonNameSource {
            case "plantguide-genus":
                #expect(item.commonNameLevel == "genus")
                #expect(item.commonNames["en"] == [item.genusCommonName ?? ""])
            case "catalog", "itis":
                #expect(item.commonNameLevel == "species")
            case nil:
                #expect(item.commonNames["en"] == nil)
            default:
                Issue.record("unknown source \(String(describing: item.commonNameSource))")
            }
        }
        // Alocasia cucullata is in the catalog, which names it first.
        let alocasia = try #require(directory.classes.first { $0.binomial == "Alocasia cucullata" })
        #expect(alocasia.commonNameSource == "catalog")
        #expect(alocasia.commonNames["en"]?.first == "Chinese Taro")
        // A Sedum without an ITIS name gets the genus-level "stonecrop".
        let stonecrops = directory.classes.filter { $0.genus == "Sedum" && $0.commonNameLevel == "genus" }
        #expect(!stonecrops.isEmpty && stonecrops.allSatisfy { $0.commonNames["en"] == ["stonecrop"] })
    }

    @Test func synonymsPointToAcceptedNamesAndHybridsKeepTheirSign() throws {
        let hybrid = try #require(directory.classes.first { $0.genus == "Tradescantia" && $0.binomial.contains("×") })
        #expect(hybrid.binomial == "Tradescantia × andersoniana")
        #expect(hybrid.commonNames["en"]?.isEmpty == false)
        #expect(directory.classes.contains { $0.acceptedBinomial != $0.binomial })
    }

    @Test func aMissingGenusRowStopsTheBuild() throws {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "species-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for path in [CatalogPaths.speciesFamilies, CatalogPaths.itisNames, CatalogPaths.usdaFamilies,
                     CatalogPaths.classSpeciesIds, CatalogPaths.speciesNames] {
            let target = scratch.appending(path: path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.root.appending(path: path), to: target)
        }
        let genera = try String(contentsOf: Self.root.appending(path: CatalogPaths.speciesGenera), encoding: .utf8)
        let withoutSedum = genera.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("Sedum\t") }.joined(separator: "\n")
        try Data(withoutSedum.utf8).write(to: scratch.appending(path: CatalogPaths.speciesGenera))
        let catalog = try CatalogBuilder(sourcesDirectory: Self.root).load()
        #expect(throws: CatalogBuildError.unknownGenus("Sedum", .init(file: CatalogPaths.speciesGenera))) {
            try SpeciesDirectoryBuilder(sourcesDirectory: scratch).load(catalog: catalog)
        }
    }
}
