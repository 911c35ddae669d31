import Foundation
import PlantCatalog
import PlantGuideCore
import PlantGuideTestSupport
import PlantIdentification
import PlantNetAPI
import Testing

/// A species named by the owner's confirmed photos counts as a confident on-device answer.
@Suite struct CollectionRecognitionHybridTests {
    private func online(_ stub: PlantNetStub) throws -> OnlineIdentifier {
        let folder = try temporaryFolder()
        let service = PlantNetService(
            client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "stub-key"), sleep: { _ in }),
            quota: QuotaTracker(file: folder.appendingPathComponent("quota.json")),
            cache: IdentificationCache(file: folder.appendingPathComponent("cache.json")),
            reachability: Reachability()
        )
        return .live(service: service) { data, organ in PlantNetImage(jpeg: data, organ: organ, sha256: String(data.hashValue)) }
    }

    /// An unsure model (0.2) whose answer the collection recognised, or not.
    private func device(recognised: Bool) -> OnDeviceIdentifier {
        OnDeviceIdentifier { _, _ in
            let model = Identification(
                source: .onDevice, model: "fake",
                predictions: [SpeciesPrediction(rank: 1, scientificName: "Bellis perennis", confidence: 0.2, classIndex: 3)],
                uncertain: true
            )
            guard recognised else { return model }
            let match = CollectionMatch(
                plantId: 3, name: "Snake plant", nickname: "Spike", room: "Bedroom", scientificName: "Dracaena trifasciata",
                similarity: 0.93, photoSHA256: String(repeating: "a", count: 64)
            )
            let candidate = SpeciesPrediction(rank: 1, scientificName: "Dracaena trifasciata", confidence: 0.93, source: .collection)
            return model.merging(CollectionRecognition(matches: [match], candidates: [candidate]))
        }
    }

    @Test(arguments: [true, false])
    func onDeviceFirstSkipsPlantNetForAConfirmedSpecies(recognised: Bool) async throws {
        try await withStub { stub in
            let hybrid = HybridIdentifier(onDevice: device(recognised: recognised), online: try online(stub), catalog: PlantCatalog(plants: []))
            let result = try await hybrid.identify(photos: [photo(1)], strategy: .onDeviceFirst)
            #expect(stub.requestCount == (recognised ? 0 : 1))
            #expect(result.source == (recognised ? .onDevice : .plantNetAPI))
            if recognised {
                #expect(result.preferred.best?.scientificName == "Dracaena trifasciata")
                #expect(result.preferred.best?.source == .collection)
                #expect(result.preferred.predictions.map(\.rank) == [1, 2])
                #expect(result.preferred.collectionMatches?.first?.nickname == "Spike")
                #expect(!result.preferred.uncertain)
            }
        }
    }

    /// A model candidate of a species the collection names is shown once, as the collection's.
    @Test func mergingKeepsOneCandidatePerSpecies() {
        let model = Identification(
            source: .onDevice, predictions: [
                SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa Liebm.", confidence: 0.5),
                SpeciesPrediction(rank: 2, scientificName: "Ficus elastica", confidence: 0.3),
            ], uncertain: true
        )
        let merged = model.merging(CollectionRecognition(candidates: [
            SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", confidence: 0.9, source: .collection),
        ]))
        #expect(merged.predictions.map(\.scientificName) == ["Monstera deliciosa", "Ficus elastica"])
        #expect(merged.predictions.map(\.source) == [.collection, nil])
        #expect(merged.collectionMatches == [])
    }
}
