import Foundation
import PlantGuideCore
import PlantGuideTestSupport
@testable import PlantNetAPI
import Testing

/// "Compare before you trust": Pl@ntNet's related images are credited, kept on the device, and shown from the
/// cache without the service.
@Suite struct ReferenceImageTests {
    private func service(_ stub: PlantNetStub, folder: URL, store: ReferenceImageStore?) -> PlantNetService {
        PlantNetService(
            client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "stub-key"), sleep: { _ in }),
            quota: QuotaTracker(file: folder.appendingPathComponent("quota.json")),
            cache: IdentificationCache(file: folder.appendingPathComponent("cache.json")),
            reachability: Reachability(), referenceImages: store
        )
    }

    @Test func relatedImagesAreCreditedKeptAndServedFromTheCacheOffline() async throws {
        let folder = try temporaryFolder()
        let store = ReferenceImageStore(directory: folder.appendingPathComponent("reference-photos"), candidates: 2)
        let options = PlantNetOptions(includeRelatedImages: true)
        let first = try await withStub { stub in
            let answer = try await service(stub, folder: folder, store: store).identify([image(1)], options: options)
            #expect(stub.requests.first?.query["include-related-images"] == "true")
            // Photo requests come after the identification, one per kept photo (4 per candidate, 2 candidates).
            #expect(stub.requests.filter { $0.path.hasPrefix("/images/") }.count == 8)
            return answer
        }
        let predictions = first.identification.predictions
        // The stub sends six per species; four are kept, credited as the service gives them.
        #expect(predictions[0].referenceImages.count == PlantNetClient.referenceImagesPerCandidate)
        #expect(predictions[0].referenceImages[0].credit == "© Stub Photographer 1 · cc-by-sa")
        #expect(predictions[0].referenceImages[1].organ == "flower")
        // The two best candidates have local copies; the third only its addresses.
        #expect(predictions[0].referenceImages.allSatisfy { $0.localID != nil })
        #expect(predictions[1].referenceImages.allSatisfy { $0.localID != nil })
        #expect(predictions[2].referenceImages.allSatisfy { $0.localID == nil })
        for image in predictions[0].referenceImages {
            let id = try #require(image.localID)
            let file = try #require(store.file(id: id))
            #expect(sha256Hex(try Data(contentsOf: file)) == id)
        }
        // The stub is gone: the same photo is answered from the cache, with the same kept photos.
        let stopped = try await PlantNetStub.start()
        let offline = service(stopped, folder: folder, store: store)
        await stopped.stop()
        let cached = try await offline.identify([image(1)], options: options)
        #expect(cached.identification.source == .cache)
        #expect(cached.identification.predictions[0].referenceImages == predictions[0].referenceImages)
        #expect(store.file(id: "../cache.json") == nil)
        #expect(store.file(id: String(repeating: "0", count: 64)) == nil)
    }

    @Test func imagesThatAreNotPhotosOrNotThereAreLeftWithoutACopy() async throws {
        let folder = try temporaryFolder()
        try await withStub { stub in
            let store = ReferenceImageStore(directory: folder, candidates: 1)
            func address(_ path: String) -> String { URL(string: path, relativeTo: stub.baseURL)?.absoluteString ?? path }
            var identification = Identification(source: .plantNetAPI, predictions: [
                SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", confidence: 0.9, referenceImages: [
                    ReferenceImage(url: address("/images/0.jpg")),
                    ReferenceImage(url: address("/images/99.jpg")),
                    ReferenceImage(url: address("/v2/projects?api-key=stub-key")),
                    ReferenceImage(url: "file:///etc/passwd"),
                ]),
            ], uncertain: false)
            identification = await store.keep(identification)
            let ids = identification.predictions[0].referenceImages.map(\.localID)
            #expect(ids[0] != nil)
            #expect(ids[1...].allSatisfy { $0 == nil })
        }
    }

    @Test func aMalformedImageListDoesNotLoseTheAnswer() throws {
        let json = Data(#"""
            {"results": [{"score": 0.9, "species": {"scientificNameWithoutAuthor": "Monstera deliciosa"}, "images": "oops"},
                         {"score": 0.1, "species": {"scientificNameWithoutAuthor": "Epipremnum aureum"},
                          "images": [{"url": {"s": "https://bs.plantnet.org/image/s/1"}}, {"author": "No address"},
                                     {"url": {"m": "javascript:alert(1)"}}]}]}
            """#.utf8)
        let decoded = try JSONDecoder().decode(IdentifyResponse.self, from: json)
        #expect(decoded.results.count == 2)
        #expect(decoded.results[0].images == nil)
        let kept = PlantNetClient.referenceImages(decoded.results[1].images ?? [])
        #expect(kept.map(\.url) == ["https://bs.plantnet.org/image/s/1"])
    }
}
