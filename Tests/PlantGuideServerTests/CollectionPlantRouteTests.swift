import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PlantGuideCore
import PlantIdentification
import Testing
@testable import PlantGuideServer

/// A plant's page in the collection: photos, history, care, edits and removal, through the fake store.
@Suite struct CollectionPlantRouteTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func app(_ store: FakeStore, configuration: ServerConfiguration = ServerConfiguration()) -> some ApplicationProtocol {
        makeApp(
            configuration: configuration,
            dependencies: ServerDependencies(
                catalog: fixtureCatalog, identification: FakeIdentifier().capability(), collection: store.collection,
                care: store.care, settings: store.settings, now: { now }
            )
        )
    }

    /// Identifies a photo and keeps it as "Monty" in the Kitchen: plant `p1` with photo `ph1`.
    static func saveMonty(_ client: some TestClientProtocol, _ session: Session) async throws {
        var form = Multipart()
        form.file("photo", "leaf.jpg", jpegBytes)
        let (headers, body) = session.multipart(form)
        let uploadID = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
            try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body)).uploadId ?? ""
        }
        let (saveHeaders, saveBody) = session.form([
            ("uploadId", uploadID), ("scientificName", "Monstera deliciosa"), ("nickname", "Monty"), ("room", "Kitchen"),
        ])
        try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
            #expect(response.headers[.location] == "/collection/p1")
        }
    }

    static func page(_ client: some TestClientProtocol, _ session: Session, _ path: String = "/collection/p1") async throws -> String {
        try await client.execute(uri: path, method: .get, headers: session.headers) { response in
            #expect(response.status == .ok)
            return response.text
        }
    }

    @Test func thePlantPageShowsThumbnailsHistoryCareProfileScheduleAndForms() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            let page = try await Self.page(client, session)
            // The grid shows the thumbnail; the full photo is a click away.
            #expect(page.contains(#"<a href="/collection/photos/ph1"><img src="/collection/photos/ph1/thumbnail""#))
            #expect(page.contains("Identified as Monstera deliciosa, 82\u{00A0}% · on device, fake"))
            for fact in ["Bright indirect", "Every 7 days while growing, every 14 days at rest", "High", "18–27 °C", "Toxic to cats and dogs"] {
                #expect(page.contains(fact), "\(fact)")
            }
            #expect(page.contains(#"<form method="post" action="/care/t-p1/done">"#))
            #expect(page.contains(#"action="/care/t-p1/snooze""#))
            #expect(page.contains(#"<input type="hidden" name="back" value="/collection/p1">"#))
            #expect(page.contains(#"id="edit-nickname" name="nickname" value="Monty" maxlength="100""#))
            #expect(page.contains(#"href="/collection/p1/remove""#))
            #expect(page.contains(#"enctype="multipart/form-data""#))
            #expect(!page.contains("style="))
            try await client.execute(uri: "/collection/photos/ph1/thumbnail", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                #expect(response.text == "thumbnail of ph1")
            }
            try await client.execute(uri: "/collection/photos/ph9/thumbnail", method: .get, headers: session.headers) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func identificationsSayTheirConfidenceSourceAndModel() {
        func summary(_ confidence: Double?, _ source: IdentificationSource, _ model: String?, species: String? = "Monstera deliciosa") -> String {
            CollectionIdentification(date: Self.now, species: species, confidence: confidence, source: source, model: model).summary
        }
        #expect(summary(0.914, .plantNetAPI, "2025-01-17") == "Identified as Monstera deliciosa, 91\u{00A0}% · Pl@ntNet 2025-01-17")
        #expect(summary(0.5, .onDevice, "resnet18") == "Identified as Monstera deliciosa, 50\u{00A0}% · on device, resnet18")
        #expect(summary(0.2, .cache, nil) == "Identified as Monstera deliciosa, 20\u{00A0}% · Pl@ntNet (cached)")
        // The service's version names it already: not said twice.
        #expect(summary(0.91, .plantNetAPI, "Pl@ntNet 2025-01-17 (7.3)") == "Identified as Monstera deliciosa, 91\u{00A0}% · Pl@ntNet 2025-01-17 (7.3)")
        #expect(summary(0.91, .cache, "Pl@ntNet 2025-01-17 (7.3)") == "Identified as Monstera deliciosa, 91\u{00A0}% · Pl@ntNet (cached) 2025-01-17 (7.3)")
        var waiting = CollectionIdentification(date: Self.now, species: "Ficus lyrata", confidence: 0.08, source: .onDevice, model: "resnet18")
        waiting.recheckNote = "waiting for a Pl@ntNet re-check"
        #expect(waiting.summary == "Identified as Ficus lyrata, 8\u{00A0}% · on device, resnet18 · waiting for a Pl@ntNet re-check")
        #expect(summary(nil, .onDevice, nil, species: nil) == "Identified as no species · on device")
    }

    @Test func photosAreAddedMadeTheCoverAndRemoved() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            var form = Multipart()
            form.file("photo", "second.png", pngBytes)
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/collection/p1/photos", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/collection/p1")
            }
            #expect(store.state.withLock { $0.photos["ph2"] } == pngBytes)
            try await client.execute(uri: "/collection/p9/photos", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .notFound)
            }
            // The newest photo is the cover until one is chosen; the collection shows the cover's thumbnail.
            var list = try await Self.page(client, session, "/collection")
            #expect(list.contains(#"src="/collection/photos/ph2/thumbnail""#))
            let (coverHeaders, coverBody) = session.form([])
            try await client.execute(uri: "/collection/p1/photos/ph1/cover", method: .post, headers: coverHeaders, body: coverBody) { response in
                #expect(response.headers[.location] == "/collection/p1")
            }
            list = try await Self.page(client, session, "/collection")
            #expect(list.contains(#"src="/collection/photos/ph1/thumbnail""#))
            let page = try await Self.page(client, session)
            #expect(page.contains(#"<li data-photo="ph1">"#))
            #expect(page.contains(#"<span class="badge">Cover</span>"#))
            #expect(page.contains(#"action="/collection/p1/photos/ph2/cover""#))
            #expect(!page.contains(#"action="/collection/p1/photos/ph1/cover""#))
            try await client.execute(uri: "/collection/p1/photos/ph2/remove", method: .post, headers: coverHeaders, body: coverBody) { response in
                #expect(response.headers[.location] == "/collection/p1")
            }
            #expect(store.state.withLock { $0.plantPhotos["p1"] } == ["ph1"])
            for path in ["/collection/p1/photos/ph2/remove", "/collection/p1/photos/ph2/cover", "/collection/p9/photos/ph1/cover"] {
                try await client.execute(uri: path, method: .post, headers: coverHeaders, body: coverBody) { response in
                    #expect(response.status == .notFound, "\(path)")
                }
            }
            // Without the anti-forgery token nothing changes.
            let (bare, bareBody) = session.form([], includeToken: false)
            try await client.execute(uri: "/collection/p1/photos/ph1/remove", method: .post, headers: bare, body: bareBody) { response in
                #expect(response.status == .forbidden)
            }
            #expect(store.state.withLock { $0.plantPhotos["p1"] } == ["ph1"])
        }
    }

    /// An upload refused as identifying refuses it, and how.
    struct BadUpload: Sendable, CustomTestStringConvertible {
        var files: [(String, Data)]
        var status: HTTPResponse.Status
        var message: String
        var testDescription: String { message }
    }

    static let badUploads = [
        BadUpload(files: [("notes.txt", Data("not a photo".utf8))], status: .unsupportedMediaType, message: "“notes.txt” is not a photo"),
        BadUpload(files: [], status: .badRequest, message: "Choose a photo of the plant first."),
        BadUpload(
            files: Array(repeating: ("leaf.jpg", jpegBytes), count: 6), status: .badRequest,
            message: "Send at most 5 photos of one plant at a time (6 were sent)."
        ),
        BadUpload(files: [("empty.jpg", Data())], status: .unprocessableContent, message: "“empty.jpg” is empty"),
        BadUpload(files: [("big.jpg", jpegBytes + Data(count: 8192))], status: .contentTooLarge, message: "larger than the limit of 4 KB"),
    ]

    @Test(arguments: badUploads)
    func badPhotosAreRefusedWithAMessage(upload: BadUpload) async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store, configuration: ServerConfiguration(maxUploadBytes: 4096)).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            var form = Multipart()
            for (name, data) in upload.files { form.file("photo", name, data) }
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/collection/p1/photos", method: .post, headers: headers, body: body) { response in
                #expect(response.status == upload.status)
                #expect(response.text.contains(upload.message), "\(response.text)")
            }
            #expect(store.state.withLock { $0.plantPhotos["p1"] } == ["ph1"])
        }
    }

    @Test func aRefusedPhotoPageLeadsBackToThePlant() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            var form = Multipart()
            form.file("photo", "notes.txt", Data("not a photo".utf8))
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/collection/p1/photos", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .unsupportedMediaType)
                #expect(response.text.contains(#"<a class="button" href="/collection/p1">Try again</a>"#))
            }
        }
    }

    @Test func nicknameRoomAndNotesAreEditedWithinTheirLimits() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            let (headers, body) = session.form([("nickname", "  Big Monty "), ("room", "Living room"), ("notes", "Turn weekly.\nLikes rain water.")])
            try await client.execute(uri: "/collection/p1/edit", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/collection/p1")
            }
            let entry = try #require(store.state.withLock { $0.entries.first })
            #expect(entry.nickname == "Big Monty")
            #expect(entry.room == "Living room")
            #expect(entry.notes == "Turn weekly.\nLikes rain water.")
            let page = try await Self.page(client, session)
            #expect(page.contains("<h1>Big Monty</h1>"))
            #expect(page.contains("Turn weekly.\nLikes rain water.</textarea>"))
            for (field, limit, what) in [
                ("nickname", InputLimits.nicknameCharacters, "nickname"), ("room", InputLimits.roomCharacters, "room"),
                ("notes", InputLimits.noteCharacters, "note"),
            ] {
                let (longHeaders, longBody) = session.form([(field, String(repeating: "a", count: limit + 1))])
                try await client.execute(uri: "/collection/p1/edit", method: .post, headers: longHeaders, body: longBody) { response in
                    #expect(response.status == .unprocessableContent)
                    #expect(response.text.contains(InputLimits.tooLong(what, characters: limit)))
                }
            }
            #expect(store.state.withLock { $0.entries.first?.nickname } == "Big Monty")
            // Blank fields clear: the page is named by the species again.
            let (clearHeaders, clearBody) = session.form([("nickname", " "), ("room", ""), ("notes", "\n")])
            try await client.execute(uri: "/collection/p1/edit", method: .post, headers: clearHeaders, body: clearBody) { response in
                #expect(response.status == .seeOther)
            }
            let cleared = try #require(store.state.withLock { $0.entries.first })
            #expect(cleared.nickname == nil && cleared.room == nil && cleared.notes == nil)
            try await client.execute(uri: "/collection/p9/edit", method: .post, headers: clearHeaders, body: clearBody) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func theAPIPatchesOnlyTheFieldsSent() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            headers[.contentType] = "application/json"
            func patch(_ json: String, _ path: String = "/api/collection/p1") async throws -> (HTTPResponse.Status, String) {
                try await client.execute(uri: path, method: .patch, headers: headers, body: ByteBuffer(string: json)) { ($0.status, $0.text) }
            }
            let (status, body) = try await patch(#"{"nickname": " Big Monty ", "notes": "Turn weekly."}"#)
            #expect(status == .ok)
            let detail = try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(body.utf8))
            #expect(detail.entry.nickname == "Big Monty" && detail.entry.room == "Kitchen" && detail.entry.notes == "Turn weekly.")
            #expect(try await patch(#"{"room": null, "notes": "  "}"#).0 == .ok)
            let cleared = try #require(store.state.withLock { $0.entries.first })
            #expect(cleared.nickname == "Big Monty" && cleared.room == nil && cleared.notes == nil)
            let tooLong = try await patch(#"{"room": "\#(String(repeating: "r", count: InputLimits.roomCharacters + 1))"}"#)
            #expect(tooLong.0 == .unprocessableContent)
            #expect(tooLong.1.contains(InputLimits.tooLong("room", characters: InputLimits.roomCharacters)))
            #expect(try await patch(#"{"nickname": 7}"#).0 == .badRequest)
            #expect(try await patch("{}", "/api/collection/p9").0 == .notFound)
            var bare = session.headers
            bare[.contentType] = "application/json"
            try await client.execute(uri: "/api/collection/p1", method: .patch, headers: bare, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .forbidden)
            }
            #expect(store.state.withLock { $0.entries.first?.nickname } == "Big Monty")
        }
    }

    @Test func doneAndSnoozeOnThePlantPageComeBackToIt() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            let (snoozeHeaders, snoozeBody) = session.form([("days", "3"), ("back", "/collection/p1")])
            try await client.execute(uri: "/care/t-p1/snooze", method: .post, headers: snoozeHeaders, body: snoozeBody) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/collection/p1")
            }
            #expect(store.state.withLock { $0.snoozed.map { $0.1 } } == [3])
            let (doneHeaders, doneBody) = session.form([("back", "/collection/p1")])
            try await client.execute(uri: "/care/t-p1/done", method: .post, headers: doneHeaders, body: doneBody) { response in
                #expect(response.headers[.location] == "/collection/p1")
            }
            #expect(store.state.withLock { $0.done } == ["t-p1"])
            // Another site is never a way back; without one, the Care page is.
            let (evilHeaders, evilBody) = session.form([("days", "1"), ("back", "https://example.com/")])
            try await client.execute(uri: "/care/t-p1/snooze", method: .post, headers: evilHeaders, body: evilBody) { response in
                #expect(response.headers[.location] == "/")
            }
            let (plainHeaders, plainBody) = session.form([("days", "1")])
            try await client.execute(uri: "/care/t-p1/snooze", method: .post, headers: plainHeaders, body: plainBody) { response in
                #expect(response.headers[.location] == "/care")
            }
        }
    }

    @Test func removingAPlantAsksFirstWithoutAScript() async throws {
        let store = FakeStore(now: Self.now)
        try await Self.app(store).test(.router) { client in
            let session = try await Session.open(client)
            try await Self.saveMonty(client, session)
            let confirm = try await Self.page(client, session, "/collection/p1/remove")
            #expect(confirm.contains("<h1>Remove Monty?</h1>"))
            #expect(confirm.contains(#"<form method="post" action="/collection/p1/remove""#))
            #expect(confirm.contains(#"<a class="button secondary" href="/collection/p1">Keep it</a>"#))
            #expect(store.state.withLock { $0.entries.count } == 1)
            let (headers, body) = session.form([])
            try await client.execute(uri: "/collection/p1/remove", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/collection")
            }
            #expect(store.state.withLock { $0.entries.isEmpty })
            try await client.execute(uri: "/collection/p1", method: .get, headers: session.headers) { response in
                #expect(response.status == .notFound)
            }
            for method in [HTTPRequest.Method.get, .post] {
                try await client.execute(uri: "/collection/p1/remove", method: method, headers: headers, body: body) { response in
                    #expect(response.status == .notFound)
                }
            }
        }
    }
}
