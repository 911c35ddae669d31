import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import Testing
@testable import PlantGuideServer

/// The live server with the fixture model and a real SQLite collection: a photo kept with "This is my plant" is
/// embedded as it is stored, and the same plant photographed again is recognised ("Is this …?").
@Suite struct LiveRecognitionTests {
    @Test func aKeptPhotoIsRecognisedTheNextTime() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("strategy", "on-device")
            let (location, first) = try await session.identifyPage(client, form)
            #expect(!first.contains("Is this"))
            let upload = String(location.dropFirst("/identify/results/".count))
            let (headers, body) = session.form([("uploadId", upload), ("scientificName", "Monstera deliciosa"), ("nickname", "Monty")])
            let plant = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                return String((response.headers[.location] ?? "").split(separator: "/").last ?? "")
            }
            let (_, again) = try await session.identifyPage(client, form)
            #expect(again.contains(#"Is this <a href="/collection/\#(plant)">Monty</a>?"#), "\(again)")
            #expect(again.contains("100 % similar to one of its photos"))
            #expect(again.contains(#"<input type="hidden" name="plantId" value="\#(plant)">"#))
            // The plant was created from an accepted answer, so its photo names the species too.
            #expect(again.contains("From your confirmed photos"))
        }
    }
}
