import Foundation
import PlantCatalog
import PlantGuideCore
import PlantGuideTestSupport
import PlantIdentification
import PlantNetAPI
import Synchronization
import Testing

/// A fake on-device classifier that answers one species with a fixed confidence and counts its calls.
final class FakeClassifier: Sendable {
    let name: String
    let confidence: Double
    let fails: Bool
    let delay: Duration
    private let count = Mutex(0)

    init(_ name: String = "Ficus elastica", confidence: Double, fails: Bool = false, delay: Duration = .zero) {
        self.name = name
        self.confidence = confidence
        self.fails = fails
        self.delay = delay
    }

    var calls: Int { count.withLock { $0 } }

    var identifier: OnDeviceIdentifier {
        OnDeviceIdentifier { [self] _, top in
            count.withLock { $0 += 1 }
            if delay > .zero { try await Task.sleep(for: delay) }
            if fails { throw FakeFailure() }
            return Identification(
                source: .onDevice, model: "fake",
                predictions: [
                    SpeciesPrediction(rank: 1, scientificName: name, confidence: confidence, classIndex: 7),
                    SpeciesPrediction(rank: 2, scientificName: "Bellis perennis", confidence: (1 - confidence) / 2),
                ].prefix(top).map { $0 },
                uncertain: confidence < 0.7
            )
        }
    }

    struct FakeFailure: Error, CustomStringConvertible {
        var description: String { "the fake classifier broke" }
    }
}

@Suite struct HybridIdentifierTests {
    private let catalog = PlantCatalog(plants: [
        CatalogPlant(scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant"], family: "Araceae",
                     category: .tropicalFoliage),
        CatalogPlant(scientificName: "Ficus elastica", commonNames: ["Rubber Plant"], family: "Moraceae",
                     category: .tropicalFoliage),
        CatalogPlant(scientificName: "Ficus lyrata", commonNames: ["Fiddle-leaf Fig"], family: "Moraceae",
                     category: .tropicalFoliage),
    ])

    private func online(_ stub: PlantNetStub, port: Int? = nil) throws -> OnlineIdentifier {
        let folder = try temporaryFolder()
        let base = port.map { URL(string: "http://127.0.0.1:\($0)")! } ?? stub.baseURL
        let service = PlantNetService(
            client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: base, apiKey: "stub-key"), sleep: { _ in }),
            quota: QuotaTracker(file: folder.appendingPathComponent("quota.json")),
            cache: IdentificationCache(file: folder.appendingPathComponent("cache.json")),
            reachability: Reachability()
        )
        return .live(service: service) { data, organ in
            PlantNetImage(jpeg: data, organ: organ, sha256: String(data.hashValue))
        }
    }

    private func hybrid(_ classifier: FakeClassifier?, _ online: OnlineIdentifier?) -> HybridIdentifier {
        HybridIdentifier(onDevice: classifier?.identifier, online: online, catalog: catalog)
    }

    @Test func onDeviceOnlyNeverAsksTheAPI() async throws {
        try await withStub { stub in
            let classifier = FakeClassifier(confidence: 0.2)
            let result = try await hybrid(classifier, try online(stub)).identify(photos: [photo(1)], strategy: .onDevice)
            #expect(result.source == .onDevice)
            #expect(result.online == nil)
            #expect(stub.requestCount == 0)
        }
    }

    @Test func onDeviceWithoutAModelSaysSo() async throws {
        let error = await #expect(throws: HybridError.self) {
            try await hybrid(nil, nil).identify(photos: [photo(1)], strategy: .onDevice)
        }
        #expect(String(describing: error).contains("no on-device model is installed"))
    }

    @Test(arguments: [(0.95, false), (0.7, false), (0.69, true), (0.1, true)])
    func onDeviceFirstAsksTheAPIOnlyBelowTheThreshold(confidence: Double, asksAPI: Bool) async throws {
        try await withStub { stub in
            let classifier = FakeClassifier(confidence: confidence)
            let result = try await hybrid(classifier, try online(stub))
                .identify(photos: [photo(1)], organs: [.leaf], strategy: .onDeviceFirst)
            #expect(classifier.calls == 1)
            #expect(stub.requestCount == (asksAPI ? 1 : 0))
            #expect(result.source == (asksAPI ? .plantNetAPI : .onDevice))
            #expect(result.onDevice != nil)
            #expect((result.online != nil) == asksAPI)
            #expect(!result.onlineUnreachable)
        }
    }

    @Test func parallelKeepsBothAndPrefersTheAPI() async throws {
        try await withStub { stub in
            let classifier = FakeClassifier(confidence: 0.99)
            let result = try await hybrid(classifier, try online(stub)).identify(photos: [photo(1)], strategy: .parallel)
            #expect(result.source == .plantNetAPI)
            #expect(result.preferred.best?.scientificName == "Monstera deliciosa")
            #expect(result.onDevice?.best?.scientificName == "Ficus elastica")
            #expect(result.online?.best?.scientificName == "Monstera deliciosa")
            #expect(result.remainingRequests == 499)
            #expect(classifier.calls == 1)
            #expect(stub.requestCount == 1)
            #expect(result.totalMilliseconds > 0)
        }
    }

    @Test(arguments: [IdentificationStrategy.parallel, .onDeviceFirst])
    func offlineAnswersFromTheDeviceWithoutAnError(strategy: IdentificationStrategy) async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let port = offline.port
        try await withStub { stub in
            let classifier = FakeClassifier(confidence: 0.3)
            let result = try await hybrid(classifier, try online(stub, port: port)).identify(photos: [photo(1)], strategy: strategy)
            #expect(result.source == .onDevice)
            #expect(result.online == nil)
            #expect(result.notes.contains { $0.contains("cannot be reached") })
            #expect(result.onlineUnreachable)
        }
    }

    /// "Offline" is said only when Pl@ntNet was asked: a confident device answer never asks it.
    @Test func aConfidentDeviceAnswerIsNotOfflineEvenWhenPlantNetCannotBeReached() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        let port = offline.port
        try await withStub { stub in
            let result = try await hybrid(FakeClassifier(confidence: 0.95), try online(stub, port: port))
                .identify(photos: [photo(1)], strategy: .onDeviceFirst)
            #expect(result.source == .onDevice)
            #expect(!result.onlineUnreachable)
            #expect(result.notes.isEmpty)
        }
    }

    @Test func apiStrategyOutOfQuotaIsAnErrorNamingTheReset() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 0
        try await withStub(behaviour) { stub in
            let error = await #expect(throws: HybridError.self) {
                try await hybrid(FakeClassifier(confidence: 0.9), try online(stub)).identify(photos: [photo(1)], strategy: .api)
            }
            let text = String(describing: error)
            #expect(text.contains("quota"))
            #expect(text.contains("resets at"))
        }
    }

    @Test func bothFailingCarriesBothCauses() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.apiKey = "another-key"
        try await withStub(behaviour) { stub in
            let error = await #expect(throws: HybridError.self) {
                try await hybrid(FakeClassifier(confidence: 0.9, fails: true), try online(stub))
                    .identify(photos: [photo(1)], strategy: .parallel)
            }
            guard case .bothFailed(let local, let remote) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(local is FakeClassifier.FakeFailure)
            #expect(remote as? PlantNetError == .invalidAPIKey)
        }
    }

    @Test func cachedAnswerIsMarkedAsCache() async throws {
        try await withStub { stub in
            let identifier = hybrid(nil, try online(stub))
            _ = try await identifier.identify(photos: [photo(1)], strategy: .api)
            let second = try await identifier.identify(photos: [photo(1)], strategy: .api)
            #expect(second.source == .cache)
            #expect(stub.requestCount == 1)
        }
    }

    @Test func enrichesFromTheCatalogAndSuggestsWhenUncertain() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.species = [StubSpecies("Ficus elastica", family: "Moraceae", score: 0.41, gbifId: "5361878"),
                             StubSpecies("Bellis perennis", family: "Asteraceae", score: 0.2, gbifId: "3117424")]
        try await withStub(behaviour) { stub in
            let result = try await hybrid(nil, try online(stub)).identify(photos: [photo(1)], strategy: .api)
            let best = try #require(result.preferred.best)
            #expect(best.inCatalog)
            #expect(best.category == .tropicalFoliage)
            #expect(best.gbifId == "5361878")
            #expect(result.preferred.predictions[1].inCatalog == false)
            #expect(result.preferred.predictions[1].family == "Asteraceae")
            #expect(result.preferred.uncertain)
            // "Did you mean" offers the catalog's other close names, never a candidate already shown.
            #expect(!result.suggestions.map(\.scientificName).contains("Ficus elastica"))
            #expect(result.preferred.uncertainReason?.contains("41 %") == true)
        }
    }

    /// Names, family and ids from a Pl@ntNet answer are kept and name the same species in a later offline answer.
    @Test func namesLearnedOnlineNameLaterOfflineAnswers() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.species = [StubSpecies("Bellis perennis", authorship: "L.", family: "Asteraceae",
                                         commonNames: ["Lawn daisy"], score: 0.88, gbifId: "3117424")]
        let memory = MemoryLearnedNames()
        try await withStub(behaviour) { stub in
            let identifier = HybridIdentifier(
                onDevice: FakeClassifier("Bellis perennis", confidence: 0.9).identifier, online: try online(stub), catalog: nil,
                enricher: AnswerEnricher(learnedNames: memory.store)
            )
            _ = try await identifier.identify(photos: [photo(1)], strategy: .api, options: PlantNetOptions(language: "en"))
            let learned = try #require(memory.all.first)
            #expect(learned.binomial == "Bellis perennis")
            #expect(learned.commonNames == ["Lawn daisy"])
            #expect(learned.gbifId == "3117424")
            #expect(learned.family == "Asteraceae")
            #expect(learned.language == "en")

            let offline = try await identifier.identify(photos: [photo(2)], strategy: .onDevice)
            let best = try #require(offline.preferred.best)
            #expect(best.commonNames == ["Lawn daisy"])
            #expect(best.family == "Asteraceae")
            #expect(best.gbifId == "3117424")
        }
    }

    @Test func notAPlantIsAnAnswer() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.notAPlant = true
        try await withStub(behaviour) { stub in
            let result = try await hybrid(FakeClassifier(confidence: 0.3), try online(stub))
                .identify(photos: [photo(1)], strategy: .parallel)
            #expect(result.notAPlant)
            #expect(result.preferred.predictions.isEmpty)
            #expect(result.onDevice != nil)
        }
    }
}
