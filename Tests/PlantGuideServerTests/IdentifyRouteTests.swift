import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import Testing
@testable import PlantGuideServer
import PlantIdentification

@Suite struct IdentifyRouteTests {
    static func app(
        _ identifier: FakeIdentifier = FakeIdentifier(), gate: Gate? = nil, configuration: ServerConfiguration = ServerConfiguration()
    ) -> some ApplicationProtocol {
        let store = FakeStore(now: Date())
        return makeApp(
            configuration: configuration,
            dependencies: ServerDependencies(catalog: fixtureCatalog, identification: identifier.capability(gate: gate), collection: store.collection)
        )
    }

    @Test func formOpensTheCameraAndOffersOrganAndStrategy() async throws {
        try await Self.app().test(.router) { client in
            try await client.execute(uri: "/identify", method: .get) { response in
                let page = response.text
                #expect(page.contains(#"accept="image/*" capture="environment""#))
                #expect(page.contains(#"id="library" name="photo" type="file" accept="image/*" multiple"#))
                #expect(page.contains(#"name="organ""#))
                #expect(page.contains(#"<option value="habit">Whole plant</option>"#))
                #expect(page.contains(#"<option value="auto" selected>"#))
                #expect(page.contains(#"<option value="on-device">"#))
                #expect(page.contains(#"name="_csrf""#))
                #expect(page.contains(#"<label for="camera">"#))
                #expect(page.contains(#"<label for="library">"#))
            }
        }
    }

    @Test func withoutAnIdentifierThePageSaysSoAndTheAPIRefuses() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/identify", method: .get) { response in
                #expect(response.text.contains("Identification is not available yet"))
                #expect(!response.text.contains(#"type="file""#))
            }
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .notImplemented)
                try #expect(response.errorBody().message.contains("API key"))
            }
        }
    }

    @Test func resultsPageShowsTenRankedCandidatesWithBarsAndBadges() async throws {
        try await Self.app().test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            form.field("organ", "leaf")
            let (_, page) = try await session.identifyPage(client, form)
            #expect(page.components(separatedBy: "<li data-rank=").count - 1 == 10)
            #expect(page.contains(#"role="img" data-percent="82""#))
            #expect(page.contains(#"aria-label="Confidence 82 percent""#))
            #expect(page.contains(#"<span class="high pct-82">"#))
            #expect(page.contains(#"<span class="low pct-17">"#))
            #expect(page.contains("Found in local database · Tropical Foliage · Araceae"))
            #expect(page.contains("Source: on this device"))
            #expect(page.contains("model fake"))
            #expect(page.contains("Answered in "))
            #expect(page.contains("Identify another plant"))
            #expect(page.contains("This is my plant"))
            // The device answered: no word of the Pl@ntNet quota.
            #expect(!page.contains("left today"))
            #expect(page.contains(#"alt="Photo 1: leaf, as you sent it""#))
        }
    }

    /// The quota is shown when the answer used it, in the same levels as the command line; never for the device or
    /// the cache.
    @Test(arguments: [(IdentificationSource.plantNetAPI, true), (.cache, false), (.onDevice, false)])
    func quotaIsShownOnlyWhenTheAnswerUsedIt(source: IdentificationSource, shown: Bool) async throws {
        try await Self.app(FakeIdentifier(source: source)).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            let (_, page) = try await session.identifyPage(client, form)
            #expect(page.contains("<strong>Pl@ntNet quota very low:</strong> 12 identifications left today") == shown)
            #expect(page.contains("from the cache (no quota used)") == (source == .cache))
        }
    }

    @Test func uncertainAnswersOfferDidYouMeanAndMidBars() async throws {
        try await Self.app(FakeIdentifier(confidence: 0.55, species: ["Echeveria elegan"] + fakeSpecies.dropFirst())).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.png", pngBytes)
            form.field("strategy", "on-device")
            let (_, page) = try await session.identifyPage(client, form)
            #expect(page.contains("Did you mean"))
            #expect(page.contains(">Echeveria elegans</a>"))
            #expect(page.contains(#"<span class="mid pct-55">"#))
            #expect(page.contains("Not sure:"))
            #expect(page.contains("scores only 55 %"))
            #expect(page.contains("Offline:"))
        }
    }

    @Test func severalPhotosWithTheirOrgansAreIdentifiedTogetherAndAllKeptWithThePlant() async throws {
        let identifier = FakeIdentifier()
        let store = FakeStore(now: Date())
        let app = makeApp(dependencies: ServerDependencies(
            catalog: fixtureCatalog, identification: identifier.capability(), collection: store.collection
        ))
        try await app.test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            form.field("organ", "leaf")
            form.file("photo", "flower.png", pngBytes)
            form.field("organ", "flower")
            form.file("photo", "plant.jpg", jpegBytes)
            form.field("organ", "habit")
            let (location, page) = try await session.identifyPage(client, form)
            #expect(identifier.organs.withLock { $0 } == [[.leaf, .flower, .habit]])
            #expect(page.contains(#"alt="Photo 2: flower, as you sent it""#))
            #expect(page.contains(#"alt="Photo 3: whole plant, as you sent it""#))
            #expect(page.contains("Keeps the 3 photos"))
            let id = String(location.dropFirst("/identify/results/".count))
            try await client.execute(uri: "/identify/uploads/\(id)/2", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(Data(buffer: response.body) == pngBytes)
            }
            for missing in ["4", "0", "02", "-1"] {
                try await client.execute(uri: "/identify/uploads/\(id)/\(missing)", method: .get, headers: session.headers) { response in
                    #expect(response.status == .notFound, "photo \(missing)")
                }
            }
            // Someone else cannot see the results.
            let stranger = try await Session.open(client)
            try await client.execute(uri: location, method: .get, headers: stranger.headers) { response in
                #expect(response.status == .notFound)
            }
            // "This is my plant": a new plant with all three photos, then the same photos for that plant again.
            let (headers, body) = session.form([("uploadId", id), ("scientificName", "Monstera deliciosa"), ("plantId", "new")])
            try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.headers[.location] == "/collection/p1")
            }
            #expect(store.state.withLock { ($0.entries.count, $0.photos.count) } == (1, 3))
            let (again, againBody) = session.form([("uploadId", id), ("scientificName", "Monstera deliciosa"), ("plantId", "p1")])
            try await client.execute(uri: "/collection", method: .post, headers: again, body: againBody) { response in
                #expect(response.headers[.location] == "/collection/p1")
            }
            #expect(store.state.withLock { ($0.entries.count, $0.photos.count) } == (1, 6))
            let (unknown, unknownBody) = session.form([("uploadId", id), ("scientificName", "Monstera deliciosa"), ("plantId", "p9")])
            try await client.execute(uri: "/collection", method: .post, headers: unknown, body: unknownBody) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test(arguments: [
        (["leaf", "flower"], "one organ for every photo"),
        (["habit"], "needs a photo of a leaf"),
        // Pl@ntNet's rules, checked before the identification is queued (the server once let this through to a 502).
        (["auto", "habit", "leaf"], "cannot go with one left to “Let PlantGuide decide”"),
        (["stem"], "Unknown organ"),
    ])
    func organsThatDoNotFitThePhotosAreRefused(organs: [String], message: String) async throws {
        let identifier = FakeIdentifier()
        try await Self.app(identifier).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "a.jpg", jpegBytes)
            form.file("photo", "b.jpg", jpegBytes)
            form.file("photo", "c.jpg", jpegBytes)
            for organ in organs { form.field("organ", organ) }
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .badRequest)
                try #expect(response.errorBody().message.contains(message))
            }
        }
        #expect(identifier.calls.withLock { $0 } == 0)
    }

    @Test func apiAnswersWithJSONAndThePhotoCanBeFetchedBackBySameSessionOnly() async throws {
        try await Self.app().test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("images", "leaf.jpg", jpegBytes)
            let (headers, body) = session.multipart(form)
            let result = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(result.predictions.map(\.rank) == Array(1...10))
            #expect(result.predictions[0].inCatalog)
            #expect(result.predictions[0].category == .tropicalFoliage)
            #expect(!result.predictions[2].inCatalog)
            let uploadID = try #require(result.uploadId)
            try await client.execute(uri: "/identify/uploads/\(uploadID)", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(Data(buffer: response.body) == jpegBytes)
            }
            let stranger = try await Session.open(client)
            try await client.execute(uri: "/identify/uploads/\(uploadID)", method: .get, headers: stranger.headers) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test(arguments: [
        ("notes.txt", Data("just some text, not a photo".utf8)),
        ("fake.jpg", Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)),
        ("doc.pdf", Data("%PDF-1.7 fake".utf8)),
    ])
    func nonImagesAreRefusedByContent(filename: String, data: Data) async throws {
        let identifier = FakeIdentifier()
        try await Self.app(identifier).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", filename, data)
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .unsupportedMediaType)
                try #expect(response.errorBody().message.contains(filename))
            }
            try await client.execute(uri: "/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .unsupportedMediaType)
                #expect(response.text.contains("Only JPEG, PNG, WebP and HEIC"))
            }
        }
        #expect(identifier.calls.withLock { $0 } == 0)
    }

    @Test func uploadsOverTheLimitAreRefused() async throws {
        let configuration = ServerConfiguration(maxUploadBytes: 4096)
        try await Self.app(configuration: configuration).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "big.jpg", jpegBytes + Data(repeating: 0, count: 8192))
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .contentTooLarge)
                try #expect(response.errorBody() == APIErrorBody(status: 413, message: ServerError.payloadTooLarge(limit: 4096).description))
            }
            var announced = headers
            announced[.contentLength] = "999999"
            try await client.execute(uri: "/identify", method: .post, headers: announced, body: body) { response in
                #expect(response.status == .contentTooLarge)
            }
        }
    }

    @Test func missingPhotoAndBadOptionsAreBadRequests() async throws {
        try await Self.app().test(.router) { client in
            let session = try await Session.open(client)
            var empty = Multipart()
            empty.field("organ", "leaf")
            let (headers, body) = session.multipart(empty)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .badRequest)
                try #expect(response.errorBody().message.contains("Choose a photo"))
            }
            var badOrgan = Multipart()
            badOrgan.file("photo", "a.jpg", jpegBytes)
            badOrgan.field("organ", "root")
            let (headers2, body2) = session.multipart(badOrgan)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers2, body: body2) { response in
                #expect(response.status == .badRequest)
            }
            var broken = headers
            broken[.contentType] = "multipart/form-data; boundary=nope"
            try await client.execute(uri: "/api/identify", method: .post, headers: broken, body: ByteBuffer(string: "garbage")) { response in
                #expect(response.status == .badRequest || response.status == .forbidden)
            }
        }
    }

    @Test func overloadAnswers503WithRetryAfterAndTheQueueDrains() async throws {
        let gate = Gate()
        let identifier = FakeIdentifier()
        let configuration = ServerConfiguration(identifyConcurrency: 1, identifyQueueLength: 1)
        // A live server, so several uploads can really be in flight at once.
        try await Self.app(identifier, gate: gate, configuration: configuration).test(.live) { client in
            let port = try #require(client.port)
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            form.field("_csrf", session.csrf)
            let upload = LiveUpload(port: port, cookie: session.cookie, contentType: form.contentType, body: Data(buffer: form.body))
            let first = Task { try await upload.send() }
            let second = Task { try await upload.send() }
            // Wait until one runs (blocked at the gate) and the other is admitted, waiting for its turn.
            while gate.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
            while try await client.execute(uri: "/api/status", method: .get, headers: session.headers, testCallback: { response in
                try JSONDecoder().decode(StatusBody.self, from: Data(buffer: response.body)).queue.admitted
            }) < 2 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let refused = try await upload.send()
            #expect(refused.status == 503)
            #expect(refused.retryAfter == "5")
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: refused.body).message.contains("busy"))
            gate.open()
            #expect(try await first.value.status == 200)
            #expect(try await second.value.status == 200)
            #expect(identifier.calls.withLock { $0 } == 2)
        }
    }
}

/// Posts one multipart upload to a live server with URLSession, from any task.
struct LiveUpload: Sendable {
    let port: Int
    let cookie: String
    let contentType: String
    let body: Data

    func send() async throws -> (status: Int, retryAfter: String?, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/identify")!)
        request.httpMethod = "POST"
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Retry-After"), data)
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var copy = self
        for field in other { copy[field.name] = field.value }
        return copy
    }
}
