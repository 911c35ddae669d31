import Foundation
import Hummingbird
import HummingbirdTesting
import PlantIdentification
import Testing
@testable import PlantGuideServer

@Suite struct CollectionCareRouteTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func app(_ store: FakeStore) -> some ApplicationProtocol {
        makeApp(
            dependencies: ServerDependencies(
                catalog: fixtureCatalog, identification: FakeIdentifier().capability(), collection: store.collection,
                care: store.care, settings: store.settings, now: { now }
            )
        )
    }

    @Test func missingCapabilitiesShowNotAvailableYet() async throws {
        try await makeApp().test(.router) { client in
            for path in ["/collection", "/care", "/settings"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.text.contains("not available yet"))
                }
            }
            for path in ["/api/collection", "/api/care", "/care/calendar.ics"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notImplemented)
                }
            }
        }
    }

    @Test func saveIdentifiedPhotoThenSeeItInTheCollection() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            let (headers, body) = session.multipart(form)
            let uploadID = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body)).uploadId ?? ""
            }
            let (saveHeaders, saveBody) = session.form([
                ("uploadId", uploadID), ("scientificName", "Monstera deliciosa"), ("nickname", "Monty"), ("room", "Kitchen"),
            ])
            let location = try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                #expect(response.status == .seeOther)
                return response.headers[.location] ?? ""
            }
            #expect(location == "/collection/p1")
            try await client.execute(uri: location, method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Monty"))
                #expect(response.text.contains("Added as Monstera deliciosa"))
                #expect(response.text.contains("/collection/photos/ph1"))
            }
            try await client.execute(uri: "/collection/photos/ph1", method: .get, headers: session.headers) { response in
                #expect(Data(buffer: response.body) == jpegBytes)
                #expect(response.headers[.contentType] == "image/jpeg")
            }
            try await client.execute(uri: "/collection", method: .get, headers: session.headers) { response in
                #expect(response.text.contains(#"<ul class="grid">"#))
                #expect(response.text.contains(#"alt="Photo of Monty""#))
            }
            try await client.execute(uri: "/collection?view=list&room=Bedroom", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("No plants here yet"))
            }
            try await client.execute(uri: "/api/collection?room=Kitchen", method: .get, headers: session.headers) { response in
                let entries = try JSONDecoder.iso.decode([CollectionEntry].self, from: Data(buffer: response.body))
                #expect(entries.map(\.nickname) == ["Monty"])
            }
            try await client.execute(uri: "/api/collection/p9", method: .get, headers: session.headers) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func savingAnExpiredOrForeignUploadIsNotFound() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("uploadId", "nope"), ("scientificName", "Monstera deliciosa")])
            try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .notFound)
            }
            let (headers2, body2) = session.form([("scientificName", "  ")])
            try await client.execute(uri: "/collection", method: .post, headers: headers2, body: body2) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func careListsDueTasksAndMarkDoneRemovesThem() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[.contentType] = "application/json"
            headers[RequestGate.csrfHeader] = session.csrf
            try await client.execute(
                uri: "/api/collection", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"scientificName":"Echeveria elegans","nickname":"Snowball"}"#)
            ) { response in
                #expect(response.status == .created)
            }
            try await client.execute(uri: "/care", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Snowball"))
                #expect(response.text.contains("Mark done"))
                #expect(response.text.contains("/care/calendar.ics"))
            }
            let (snoozeHeaders, snoozeBody) = session.form([("days", "1")])
            try await client.execute(uri: "/care/t-p1/snooze", method: .post, headers: snoozeHeaders, body: snoozeBody) { response in
                #expect(response.status == .seeOther)
            }
            #expect(store.state.withLock { $0.snoozed.map(\.0) } == ["t-p1"])
            let (doneHeaders, doneBody) = session.form([])
            try await client.execute(uri: "/care/t-p1/done", method: .post, headers: doneHeaders, body: doneBody) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/care")
            }
            #expect(store.state.withLock { $0.done } == ["t-p1"])
            try await client.execute(uri: "/api/care?days=7", method: .get, headers: session.headers) { response in
                try #expect(JSONDecoder.iso.decode([DueCareItem].self, from: Data(buffer: response.body)).isEmpty)
            }
            try await client.execute(uri: "/api/care?days=0", method: .get, headers: session.headers) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/care/t-unknown/done", method: .post, headers: headers) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/care/calendar.ics", method: .get, headers: session.headers) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/calendar") == true)
                #expect(response.text.hasPrefix("BEGIN:VCALENDAR"))
            }
        }
    }

    @Test func settingsShowKeyStatusButNeverTheKey() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Not set"))
                #expect(response.text.contains("480 of 500"))
            }
            let (headers, body) = session.form([("apiKey", "2b10SecretKeyValue42")])
            try await client.execute(uri: "/settings/api-key", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/settings?saved=1", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("was saved"))
                #expect(response.text.contains("A Pl@ntNet API key is stored"))
                #expect(!response.text.contains("2b10SecretKeyValue42"))
            }
            try await client.execute(uri: "/api/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains(#""apiKeySet":true"#))
                #expect(!response.text.contains("2b10SecretKeyValue42"))
            }
            let (badHeaders, badBody) = session.form([("apiKey", "no spaces allowed here")])
            try await client.execute(uri: "/settings/api-key", method: .post, headers: badHeaders, body: badBody) { response in
                #expect(response.status == .badRequest)
            }
        }
    }
}

extension JSONDecoder {
    static var iso: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
