import Foundation
import Hummingbird
import HummingbirdTesting
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantStore
import PlantStoreSQLite
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

/// One copy of the on-device model in the server: identification and the collection's photo embeddings use the same
/// one, which follows the model installed while the server runs, and is loaded again only when the default changes.
@Suite struct SharedModelTests {
    @Test func aPhotoAddedAfterAModelIsUploadedIsEmbeddedByThatModelAtOnce() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let weights = try Data(contentsOf: ModelInstallRouteTests.checkpoint)
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        let plant = try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            headers[.contentType] = "application/octet-stream"
            headers[.accept] = "application/json"
            try await client.execute(
                uri: "/settings/model/upload?name=resnet18_weights_best_acc.tar", method: .put, headers: headers, body: ByteBuffer(bytes: weights)
            ) { response in
                #expect(response.status == .created, "\(response.text)")
            }
            let (form, formBody) = session.form([("scientificName", "Monstera deliciosa")])
            let plant = try await client.execute(uri: "/collection", method: .post, headers: form, body: formBody) { response in
                #expect(response.status == .seeOther)
                return String((response.headers[.location] ?? "").split(separator: "/").last ?? "")
            }
            var upload = Multipart()
            upload.file("photo", "leaf.jpg", photo)
            let (photoHeaders, photoBody) = session.multipart(upload)
            try await client.execute(uri: "/collection/\(plant)/photos", method: .post, headers: photoHeaders, body: photoBody) { response in
                #expect(response.status == .seeOther, "\(response.text)")
            }
            return try #require(Int64(plant))
        }
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        let photos = try database.photos(ofPlant: plant)
        #expect(photos.count == 1)
        let model = try Classifier(contentsOf: try #require(ModelStore(dataDirectory: DataDirectory(url: home)).defaultModel()))
        for stored in photos {
            let embedding = try database.embedding(ofPhoto: stored.photo.sha256)
            #expect(embedding?.model == model.embeddingModel, "embedded at once, by the model uploaded after the server started")
        }
    }

    @Test func theModelIsLoadedOnceAndAgainOnlyWhenTheDefaultChanges() throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let directory = DataDirectory(url: home)
        let model = SharedModel(directory: directory, threads: 1)
        #expect(model.loaded == nil)
        #expect(model.refresh())
        let first = try #require(model.loaded)
        #expect(!model.refresh(), "nothing changed: nothing loaded")
        #expect(model.loaded?.classifier === first.classifier)
        // Another model becomes the default: it is loaded, and the first one let go.
        let checkpoint = LiveDependenciesTests.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet34.pth")
        let store = ModelStore(dataDirectory: directory)
        let other = try store.install(checkpoint: checkpoint, options: .init(architecture: .resnet34, labels: "index"))
        #expect(store.defaultModel()?.lastPathComponent == other.lastPathComponent)
        #expect(model.refresh())
        #expect(model.loaded?.url.lastPathComponent == store.defaultModel()?.lastPathComponent)
        #expect(model.loaded?.classifier !== first.classifier)
        // A file that cannot be read is said, not hidden.
        try Data("not a model".utf8).write(to: try #require(store.defaultModel()))
        #expect(model.refresh())
        guard case .failed(_, let reason) = model.state else {
            Issue.record("a damaged model is not reported: \(model.state)")
            return
        }
        #expect(!reason.isEmpty)
        // A file that failed is tried again on the next refresh (the cause may have passed): here it still fails.
        #expect(model.refresh())
        if case .loaded = model.state { Issue.record("a damaged model loaded") }
    }
}
