import Foundation
import PlantCatalog
import PlantGuideCore
import PlantIdentification
import Synchronization
import Testing

/// Names learned in memory, standing in for the store (the SQLite store has its own tests in PlantStoreTests).
final class MemoryLearnedNames: Sendable {
    private let records = Mutex<[LearnedSpecies]>([])

    var all: [LearnedSpecies] { records.withLock { $0 } }

    var store: LearnedNames {
        LearnedNames(
            record: { species in
                self.records.withLock { records in
                    for item in species {
                        records.removeAll {
                            LearnedSpecies.key(for: $0.binomial) == LearnedSpecies.key(for: item.binomial) && $0.language == item.language
                        }
                        records.append(item)
                    }
                }
            },
            lookup: { names in
                self.records.withLock { records in
                    var found: [String: [LearnedSpecies]] = [:]
                    for name in names {
                        let matching = records.filter { LearnedSpecies.key(for: $0.binomial) == LearnedSpecies.key(for: name) }
                        if !matching.isEmpty { found[name] = matching }
                    }
                    return found
                }
            }
        )
    }
}

/// The enrichment of answers against the bundled catalog and species directory.
@Suite struct AnswerEnricherTests {
    static let catalog = PlantCatalog()
    static let directory = SpeciesDirectory()

    private func enricher(learned: LearnedNames? = nil) -> AnswerEnricher {
        AnswerEnricher(
            catalog: Self.catalog, directory: Self.directory, learnedNames: learned,
            careProfile: { _ in
                CareProfile(light: .brightIndirect, waterGrowingDays: 7, waterWinterDays: 14, fertilizeGrowingDays: 30, mistDays: nil,
                            repotDays: 730, pruneDays: nil, humidity: .high, minTemperature: 18, maxTemperature: 29,
                            toxicToCats: true, toxicToDogs: true, toxicitySource: "test", basis: "test")
            }
        )
    }

    private func onDevice(_ predictions: [(String, Double, Int?)], photos: Int? = nil, agreeing: Int? = nil) -> Identification {
        Identification(
            source: .onDevice, model: "resnet18-plantnet300k",
            predictions: predictions.enumerated().map { rank, item in
                SpeciesPrediction(rank: rank + 1, scientificName: item.0, confidence: item.1, classIndex: item.2)
            },
            uncertain: false, photoCount: photos, agreeingPhotos: agreeing
        )
    }

    private func classIndex(of binomial: String) throws -> Int {
        try #require(try Self.directory.entries(named: binomial).first).index
    }

    @Test func aWildSpeciesGetsItsNamesAndFamily() throws {
        let clover = try classIndex(of: "Trifolium repens")
        let answer = enricher().enrich(onDevice([("Trifolium repens", 0.93, clover)]))
        let best = try #require(answer.best)
        #expect(best.commonNameLevel == .species)
        #expect(best.commonNames.contains("white clover"))
        #expect(best.family == "Fabaceae")
        #expect(best.genus == "Trifolium")
        #expect(!best.inCatalog)
        #expect(!answer.uncertain)
        #expect(answer.uncertainReason == nil)
    }

    @Test func aSpeciesWithoutItsOwnNameGetsTheGenusNameMarked() throws {
        let entries = try Self.directory.entries().filter { $0.genus == "Sedum" && $0.commonNameLevel == .genus }
        let sedum = try #require(entries.first)
        let best = try #require(enricher().enrich(onDevice([(sedum.binomial, 0.9, sedum.index)])).best)
        #expect(best.commonNames == ["stonecrop"])
        #expect(best.commonNameLevel == .genus)
        #expect(best.family == "Crassulaceae")
        // Sedum is in the catalog as a genus: its species there are one tap away.
        #expect(!best.relatedCatalogPlants.isEmpty)
        #expect(best.relatedCatalogPlants.allSatisfy { $0.scientificName.hasPrefix("Sedum ") })
    }

    @Test func aCatalogSpeciesCarriesItsCatalogNamesAndCare() throws {
        let alocasia = try classIndex(of: "Alocasia cucullata")
        let best = try #require(enricher().enrich(onDevice([("Alocasia cucullata", 0.95, alocasia)])).best)
        #expect(best.inCatalog)
        #expect(best.category == .tropicalFoliage)
        #expect(best.commonNames.first == "Chinese Taro")
        #expect(best.careSummary?.contains("water every 7 days (14 in winter)") == true)
        #expect(best.relatedCatalogPlants.isEmpty)
    }

    @Test func lowConfidenceIsUncertainWithTheModelsLimitAndANextStep() throws {
        let answer = enricher().enrich(onDevice([("Trifolium repens", 0.41, nil), ("Trifolium pratense", 0.12, nil)]))
        #expect(answer.uncertain)
        let reason = try #require(answer.uncertainReason)
        #expect(reason.contains("41 %"))
        #expect(reason.contains("1,081 mostly wild species"))
        #expect(reason.contains("identify online with Pl@ntNet"))
    }

    @Test func closeCandidatesAreUncertainEvenAboveTheThreshold() throws {
        var rule = UncertaintyRule(minimumConfidence: 0.5)
        let identification = onDevice([("Trifolium repens", 0.55, nil), ("Trifolium pratense", 0.30, nil)])
        #expect(rule.verdict(for: identification)?.contains("Two candidates are close") == true)
        rule.closeRatio = 0.6
        #expect(rule.verdict(for: identification) == nil)
    }

    @Test func anAnswerWithoutCandidatesIsUncertain() throws {
        let answer = enricher().enrich(Identification(source: .plantNetAPI, predictions: [], uncertain: true))
        #expect(answer.uncertain)
        #expect(answer.uncertainReason?.contains("No plant was recognised") == true)
    }

    @Test func disagreeingPhotosAreUncertain() throws {
        let rule = UncertaintyRule()
        #expect(rule.verdict(for: onDevice([("Trifolium repens", 0.8, nil)], photos: 3, agreeing: 1))?
            .contains("only 1 of 3") == true)
        #expect(rule.verdict(for: onDevice([("Trifolium repens", 0.8, nil)], photos: 3, agreeing: 2)) == nil)
    }

    @Test func pl_ntNetAnswersAreNotBlamedOnTheOfflineModel() throws {
        let answer = enricher().enrich(Identification(
            source: .plantNetAPI, predictions: [SpeciesPrediction(rank: 1, scientificName: "Monstera acuminata", confidence: 0.3)],
            uncertain: false
        ))
        let reason = try #require(answer.uncertainReason)
        #expect(!reason.contains("1,081"))
        #expect(reason.contains("related catalog plants"))
        #expect(answer.best?.relatedCatalogPlants.contains { $0.scientificName == "Monstera deliciosa" } == true)
    }

    @Test func didYouMeanNeverRepeatsACandidate() throws {
        let answer = enricher().enrich(onDevice([
            ("Alocasia cucullata", 0.3, nil), ("Alocasia macrorrhizos", 0.2, nil), ("Alocasia odora", 0.1, nil),
        ]))
        let suggestions = enricher().didYouMean(for: answer)
        let shown = Set(answer.predictions.map(\.scientificName))
        #expect(suggestions.allSatisfy { !shown.contains($0.scientificName) })
        #expect(Set(suggestions.map(\.scientificName)).count == suggestions.count)
    }

    @Test func learnedNamesNameASpeciesOffline() async throws {
        let memory = MemoryLearnedNames()
        let sedum = try #require(try Self.directory.entries().first { $0.genus == "Sedum" && $0.commonNameLevel == .genus })
        try await memory.store.record([LearnedSpecies(
            binomial: sedum.binomial, language: "en", commonNames: ["Learned stonecrop"], family: "Crassulaceae",
            gbifId: "123", powoId: "urn:lsid:ipni.org:names:1", learnedAt: Date(timeIntervalSince1970: 1_800_000_000)
        )])
        let best = try #require(await enricher(learned: memory.store).enriched(onDevice([(sedum.binomial, 0.9, sedum.index)])).best)
        // Without the look-up, the directory's genus-level name stands.
        let offline = try #require(enricher(learned: memory.store).enrich(onDevice([(sedum.binomial, 0.9, sedum.index)])).best)
        #expect(offline.commonNameLevel != .species || offline.commonNames != ["Learned stonecrop"])
        #expect(best.commonNames == ["Learned stonecrop"])
        #expect(best.commonNameLevel == .species)
        #expect(best.gbifId == "123")
        #expect(best.powoId == "urn:lsid:ipni.org:names:1")
    }

    @Test func speciesDirectoryFindsTyposAndCommonNames() throws {
        #expect(try Self.directory.find("white clover")?.binomial == "Trifolium repens")
        #expect(try Self.directory.find("Trifolium repnes")?.binomial == "Trifolium repens")
        #expect(try Self.directory.find("Trifolium repens L.")?.binomial == "Trifolium repens")
        #expect(try Self.directory.find("zzzz qqqq") == nil)
        #expect(try Self.directory.find(String(repeating: "a", count: 100_000)) == nil)
    }
}
