import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantGuideLive
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideServer

/// Two households on one server (the live dependencies over a real SQLite collection with the on-device fixture model):
/// alice (`Home`) fills her collection, then bob (`Joneses`, an owner of his own household) tries every route that
/// names a plant, a photo, a care task, an upload, an account or the calendar with alice's ids. He gets 404, an empty
/// answer or 403, and alice's collection is the same afterwards.
@Suite struct HouseholdIsolationRouteTests {
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    struct Login {
        var cookie: String
        var csrf: String
        var json: HTTPFields { [.cookie: cookie, Self.csrfHeader: csrf, .contentType: "application/json"] }
        var plain: HTTPFields { [.cookie: cookie] }
        static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

        func form(_ fields: [(String, String)]) -> (HTTPFields, ByteBuffer) {
            Session(cookie: cookie, csrf: csrf).form(fields)
        }
    }

    static func logIn(_ client: some TestClientProtocol, _ name: String, _ password: String) async throws -> Login {
        let session = try await Session.open(client)
        let (headers, body) = session.form([("user", name), ("password", password), ("next", "/")])
        let cookie = try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
            #expect(response.status == .seeOther, "\(name) logs in")
            return String((response.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
        }
        let csrf = try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: cookie]) { response in
            try JSONDecoder().decode(SessionBody.self, from: Data(buffer: response.body)).csrfToken
        }
        return Login(cookie: cookie, csrf: csrf)
    }

    static func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body))
    }

    /// What alice sees of her collection, to compare before and after bob's attempts.
    static func collectionOf(_ client: some TestClientProtocol, _ login: Login, plant: String) async throws -> String {
        var seen = ""
        for uri in ["/api/collection", "/api/collection/\(plant)", "/api/care?days=366"] {
            seen += try await client.execute(uri: uri, method: .get, headers: login.plain) { response in
                #expect(response.status == .ok, "\(uri)")
                return "\(uri): \(response.text)\n"
            }
        }
        return seen
    }

    @Test func anotherHouseholdFindsNothingOfAlicesThroughAnyRoute() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        let hash = { (password: String) in PasswordHash(password: password, iterations: 1_000).encoded }
        _ = try database.addUser(name: "alice", role: .owner, passwordHash: hash("alice passphrase"), householdId: 1, now: Date())
        let joneses = try database.createHousehold(named: "Joneses", now: Date())
        _ = try database.addUser(name: "bob", role: .owner, passwordHash: hash("bob passphrase"), householdId: joneses.id, now: Date())
        var configuration = ServerConfiguration()
        configuration.hasAccounts = true
        let app = makeApp(
            configuration: configuration,
            dependencies: await ServerDependencies.live(dataDirectory: home, environment: [:], store: database.scoped(to: nil))
        )
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await app.test(.router) { client in
            // Alice: a plant with a photo from an identification, a second photo, care done, a calendar address.
            let alice = try await Self.logIn(client, "alice", "alice passphrase")
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            let (location, _) = try await Session(cookie: alice.cookie, csrf: alice.csrf).identifyPage(client, form)
            let uploadID = String(location.dropFirst("/identify/results/".count))
            let saved = try JSONEncoder().encode(SaveBody(uploadId: uploadID, scientificName: "Monstera deliciosa", nickname: "Alice's Monty"))
            let plant = try await client.execute(uri: "/api/collection", method: .post, headers: alice.json, body: ByteBuffer(data: saved)) {
                response in
                #expect(response.status == .created, "\(response.text)")
                return try #require((try Self.json(response) as? [String: Any])?["id"] as? String)
            }
            var second = Multipart()
            second.file("photo", "second.png", ImageFixture.png(width: 300, height: 200, seed: 7))
            let (photoHeaders, photoBody) = Session(cookie: alice.cookie, csrf: alice.csrf).multipart(second)
            try await client.execute(uri: "/collection/\(plant)/photos", method: .post, headers: photoHeaders, body: photoBody) { response in
                #expect(response.status == .seeOther, "\(response.text)")
            }
            let photos = try await client.execute(uri: "/api/collection/\(plant)", method: .get, headers: alice.plain) { response in
                ((try Self.json(response) as? [String: Any])?["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect(photos.count == 2)
            let photoID = try #require(photos.first)
            try await client.execute(uri: "/api/care/\(plant)-water/done", method: .post, headers: alice.json) { response in
                #expect(response.status == .noContent, "\(response.text)")
            }
            let (feedHeaders, feedBody) = alice.form([("action", "renew")])
            try await client.execute(uri: "/settings/calendar-feed", method: .post, headers: feedHeaders, body: feedBody) { response in
                #expect(response.status == .seeOther)
            }
            let aliceFeed = try await client.execute(uri: "/settings", method: .get, headers: alice.plain) { response in
                try #require(response.text.firstMatch(of: #/care/feed/([0-9a-f]{64})\.ics/#).map { String($0.output.1) })
            }
            let before = try await Self.collectionOf(client, alice, plant: plant)
            #expect(before.contains("Alice's Monty"))
            // The care log and the history say who did it.
            #expect(before.contains(#""by":"alice""#), "\(before)")
            try await client.execute(uri: "/collection/\(plant)", method: .get, headers: alice.plain) { response in
                #expect(response.text.contains(#"<span class="meta">by alice</span>"#))
            }

            // Bob, in another household, with alice's ids.
            let bob = try await Self.logIn(client, "bob", "bob passphrase")
            let notFound: [(HTTPRequest.Method, String)] = [
                (.get, "/api/collection/\(plant)"), (.get, "/collection/\(plant)"), (.get, "/collection/\(plant)/remove"),
                (.get, "/collection/photos/\(photoID)"), (.get, "/collection/photos/\(photoID)/thumbnail"),
                (.get, "/identify/results/\(uploadID)"), (.get, "/identify/uploads/\(uploadID)"),
                (.get, "/identify/uploads/\(uploadID)/0"),
                (.post, "/api/care/\(plant)-water/done"), (.post, "/api/care/\(plant)-water/snooze?days=2"),
                (.delete, "/api/users/alice"),
            ]
            for (method, uri) in notFound {
                try await client.execute(uri: uri, method: method, headers: bob.json) { response in
                    #expect(response.status == .notFound, "\(method) \(uri) as bob: \(response.status) \(response.text.prefix(200))")
                }
            }
            let patch = ByteBuffer(string: #"{"nickname":"Bob's now"}"#)
            try await client.execute(uri: "/api/collection/\(plant)", method: .patch, headers: bob.json, body: patch) { response in
                #expect(response.status == .notFound, "PATCH as bob: \(response.text)")
            }
            let password = ByteBuffer(string: #"{"password":"taken over passphrase"}"#)
            try await client.execute(uri: "/api/users/alice/password", method: .put, headers: bob.json, body: password) { response in
                #expect(response.status == .notFound, "PUT alice's password as bob: \(response.text)")
            }
            // An upload of alice's, or her plant, cannot be saved into bob's collection.
            for save in [
                SaveBody(uploadId: uploadID, scientificName: "Monstera deliciosa"),
                SaveBody(plantId: plant, scientificName: "Monstera deliciosa"),
            ] {
                let body = ByteBuffer(data: try JSONEncoder().encode(save))
                try await client.execute(uri: "/api/collection", method: .post, headers: bob.json, body: body) { response in
                    #expect(response.status == .notFound, "save \(save) as bob: \(response.status) \(response.text.prefix(200))")
                }
            }
            // The plant page's forms.
            let forms: [(String, [(String, String)])] = [
                ("/collection/\(plant)/edit", [("nickname", "Bob's now")]), ("/collection/\(plant)/remove", []),
                ("/collection/\(plant)/photos/\(photoID)/cover", []), ("/collection/\(plant)/photos/\(photoID)/remove", []),
                ("/care/\(plant)-water/done", []), ("/care/\(plant)-water/snooze", [("days", "3")]),
            ]
            for (uri, fields) in forms {
                let (headers, body) = bob.form(fields)
                try await client.execute(uri: uri, method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .notFound, "POST \(uri) as bob: \(response.status) \(response.text.prefix(200))")
                }
            }
            let (uploadHeaders, uploadBody) = Session(cookie: bob.cookie, csrf: bob.csrf).multipart(second)
            try await client.execute(uri: "/collection/\(plant)/photos", method: .post, headers: uploadHeaders, body: uploadBody) { response in
                #expect(response.status == .notFound, "a photo for alice's plant as bob: \(response.text.prefix(200))")
            }
            // Lists, pages and feeds are bob's own: none of alice's.
            for uri in ["/api/collection", "/collection", "/api/care?days=366", "/care", "/care/calendar.ics", "/api/users", "/settings/users"] {
                try await client.execute(uri: uri, method: .get, headers: bob.plain) { response in
                    #expect(response.status == .ok, "\(uri) as bob")
                    #expect(!response.text.contains("Alice's Monty") && !response.text.contains(plant + "-water"), "\(uri) as bob")
                    #expect(!response.text.contains("alice"), "\(uri) as bob names alice")
                }
            }
            try await client.execute(uri: "/api/users", method: .get, headers: bob.plain) { response in
                let users = (try Self.json(response) as? [String: Any])?["users"] as? [[String: Any]]
                #expect(users?.compactMap { $0["name"] as? String } == ["bob"])
            }
            // Bob's calendar address is his own, and serves none of alice's tasks; making it left alice's alone.
            let (bobFeedHeaders, bobFeedBody) = bob.form([("action", "renew")])
            try await client.execute(uri: "/settings/calendar-feed", method: .post, headers: bobFeedHeaders, body: bobFeedBody) { response in
                #expect(response.status == .seeOther)
            }
            let bobFeed = try await client.execute(uri: "/settings", method: .get, headers: bob.plain) { response in
                // An owner of another household does not get the installation's forms.
                #expect(!response.text.contains(#"action="/settings/api-key""#))
                #expect(!response.text.contains(#"action="/settings/identification""#))
                return try #require(response.text.firstMatch(of: #/care/feed/([0-9a-f]{64})\.ics/#).map { String($0.output.1) })
            }
            #expect(bobFeed != aliceFeed)
            try await client.execute(uri: "/care/feed/\(bobFeed).ics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("BEGIN:VCALENDAR") && !response.text.contains("Alice's Monty"))
            }
            try await client.execute(uri: "/care/feed/\(aliceFeed).ics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Alice's Monty"), "alice's address still serves her tasks")
            }
            // The installation's settings are household 1's owners' to change.
            let key = ByteBuffer(string: #"{"apiKey":"bobs-own-key-123"}"#)
            try await client.execute(uri: "/api/settings/api-key", method: .put, headers: bob.json, body: key) { response in
                #expect(response.status == .forbidden)
            }
            // Bob's own plant of the same species is his, and alice does not see it.
            let bobsPlant = ByteBuffer(data: try JSONEncoder().encode(SaveBody(scientificName: "Monstera deliciosa", nickname: "Bob's Monty")))
            try await client.execute(uri: "/api/collection", method: .post, headers: bob.json, body: bobsPlant) { response in
                #expect(response.status == .created, "\(response.text)")
            }
            try await client.execute(uri: "/api/collection", method: .get, headers: bob.plain) { response in
                #expect(response.text.contains("Bob's Monty") && !response.text.contains("Alice's Monty"))
            }

            // Alice's collection is as it was.
            #expect(try await Self.collectionOf(client, alice, plant: plant) == before)
            try await client.execute(uri: "/collection/photos/\(photoID)", method: .get, headers: alice.plain) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes > 1000)
            }
        }
    }
}
