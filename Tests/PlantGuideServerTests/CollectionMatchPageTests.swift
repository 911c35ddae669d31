import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import Testing
@testable import PlantGuideServer

/// The results page asks "Is this Spike?" when the on-device answer recognised one of the owner's plants.
@Suite struct CollectionMatchPageTests {
    private func capability(matches: [CollectionMatch]) -> IdentificationCapability {
        IdentificationCapability(summary: "Fake identifier", strategies: [.auto, .onDevice]) { _ in
            var identification = Identification(
                source: .onDevice, model: "fake",
                predictions: [
                    SpeciesPrediction(rank: 1, scientificName: "Dracaena trifasciata", confidence: 0.94, source: .collection),
                    SpeciesPrediction(rank: 2, scientificName: "Monstera deliciosa", confidence: 0.02),
                ],
                uncertain: false
            )
            identification.collectionMatches = matches
            return IdentifyOutcome(identification: identification)
        }
    }

    @Test(arguments: [true, false])
    func resultsAskWhetherThePhotoShowsTheMatchedPlant(matched: Bool) async throws {
        let match = CollectionMatch(
            plantId: 3, name: "Snake plant", nickname: "Spike <3", room: "Bedroom", scientificName: "Dracaena trifasciata",
            similarity: 0.936, photoSHA256: String(repeating: "c", count: 64)
        )
        let app = makeApp(dependencies: ServerDependencies(
            catalog: fixtureCatalog, identification: capability(matches: matched ? [match] : []), collection: FakeStore(now: Date()).collection
        ))
        try await app.test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            let (location, page) = try await session.identifyPage(client, form)
            #expect(page.contains("From your confirmed photos"))
            guard matched else {
                #expect(!page.contains("Is this"))
                return
            }
            let upload = String(location.dropFirst("/identify/results/".count))
            #expect(page.contains(#"Is this <a href="/collection/3">Spike &lt;3</a>?"#), "\(page)")
            #expect(page.contains("Dracaena trifasciata · Bedroom · 94 % similar to one of its photos"))
            #expect(page.contains(#"<input type="hidden" name="plantId" value="3">"#))
            #expect(page.contains(#"<input type="hidden" name="uploadId" value="\#(upload)">"#))
            #expect(page.contains(#"<input type="hidden" name="scientificName" value="Dracaena trifasciata">"#))
            #expect(page.contains("Yes, add the photo to Spike &lt;3"))
            // One tap logs the watering instead, and comes back to the plant's page.
            #expect(page.contains(#"<form method="post" action="/care/3-water/done">"#))
            #expect(page.contains(#"<input type="hidden" name="back" value="/collection/3">"#))
            #expect(page.contains("Yes, and I watered it today"))
        }
    }
}
