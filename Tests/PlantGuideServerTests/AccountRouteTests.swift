import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantGuideLive
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideServer

/// Log-in with accounts over real HTTP on 127.0.0.1: sessions and throttling in a real SQLite collection database.
@Suite struct AccountRouteTests {
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// A collection database in a fresh directory with the given accounts (cheap hashes: 1,000 iterations).
    static func database(_ accounts: [(String, UserRole, String)]) throws -> (CollectionDatabase, URL) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-accounts-\(UUID().uuidString)")
        let database = try CollectionDatabase.open(in: DataDirectory(url: url))
        for (name, role, password) in accounts {
            _ = try database.addUser(
                name: name, role: role, passwordHash: PasswordHash(password: password, iterations: 1_000).encoded, now: Date()
            )
        }
        return (database, url)
    }

    /// A server over `database` that may have no accounts yet (then loopback needs no log-in).
    static func appWithoutAccountsYet(_ database: CollectionDatabase) -> some ApplicationProtocol {
        var dependencies = ServerDependencies(catalog: fixtureCatalog)
        dependencies.accounts = AccountDirectory(store: database)
        dependencies.settings = FakeStore(now: Date()).settings
        return makeApp(dependencies: dependencies)
    }

    static func app(_ database: CollectionDatabase) -> some ApplicationProtocol {
        var configuration = ServerConfiguration()
        configuration.hasAccounts = true
        var dependencies = ServerDependencies(catalog: fixtureCatalog)
        dependencies.accounts = AccountDirectory(store: database)
        dependencies.settings = FakeStore(now: Date()).settings
        dependencies.calendarFeed = CalendarFeed(file: URL(fileURLWithPath: database.path).deletingLastPathComponent()
            .appendingPathComponent("calendar-feed-token"))
        return makeApp(configuration: configuration, dependencies: dependencies)
    }

    /// `POST /api/session`; returns the status, the new session cookie (if any) and the Retry-After header.
    static func logIn(
        _ client: some TestClientProtocol, _ session: Session, user: String?, password: String
    ) async throws -> (status: HTTPResponse.Status, cookie: String?, retryAfter: String?, message: String) {
        var body: [String: String] = ["password": password]
        if let user { body["user"] = user }
        let json = try JSONEncoder().encode(body)
        return try await client.execute(
            uri: "/api/session", method: .post,
            headers: [.cookie: session.cookie, Self.csrfHeader: session.csrf, .contentType: "application/json"],
            body: ByteBuffer(bytes: json)
        ) { response in
            let cookie = response.headers[.setCookie].map { String($0.split(separator: ";").first ?? "") }
            return (response.status, cookie, response.headers[.retryAfter], response.text)
        }
    }

    static func state(_ client: some TestClientProtocol, cookie: String) async throws -> SessionBody {
        try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: cookie]) { response in
            try JSONDecoder().decode(SessionBody.self, from: Data(buffer: response.body))
        }
    }

    @Test func twoAccountsLogInAndWrongNamesOrPasswordsAreRefused() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            for (name, password, role) in [("alice", "alice passphrase", "owner"), ("BOB", "bob passphrase", "member")] {
                let session = try await Session.open(client)
                let outcome = try await Self.logIn(client, session, user: name, password: password)
                #expect(outcome.status == .noContent, "\(name): \(outcome.message)")
                let cookie = try #require(outcome.cookie)
                #expect(cookie != session.cookie, "a fresh session id after log-in")
                let state = try await Self.state(client, cookie: cookie)
                #expect(state.loggedIn && state.user == name.lowercased() && state.role == role)
                try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    #expect(response.text.contains("Signed in as \(name.lowercased())"))
                }
            }
            let session = try await Session.open(client)
            for (name, password) in [("alice", "bob passphrase"), ("carol", "alice passphrase"), ("", "alice passphrase")] {
                let outcome = try await Self.logIn(client, session, user: name, password: password)
                #expect(outcome.status == .unauthorized, "\(name)")
                #expect(outcome.cookie == nil)
            }
            #expect(try await Self.state(client, cookie: session.cookie).loggedIn == false)
            try await client.execute(uri: "/collection", method: .get, headers: session.headers) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location]?.hasPrefix("/login") == true)
            }
            try await client.execute(uri: "/login", method: .get, headers: session.headers) { response in
                #expect(response.text.contains(#"name="user""#))
                #expect(response.text.contains("required autofocus"))
            }
            // The form says what is missing on the form itself.
            let (headers, body) = session.form([("password", "alice passphrase")])
            try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .unauthorized)
                #expect(response.text.contains("Enter your user name as well"))
                #expect(response.text.contains(#"id="password""#))
            }
        }
    }

    @Test func oneAccountMayLeaveTheNameOut() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/login", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("may leave the name empty"))
            }
            let (headers, body) = session.form([("password", "alice passphrase"), ("next", "/browse")])
            try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/browse")
            }
        }
    }

    @Test func theSixthFailureForAnAccountIsThrottled() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            let session = try await Session.open(client)
            for attempt in 1...5 {
                let outcome = try await Self.logIn(client, session, user: "alice", password: "guess \(attempt)")
                #expect(outcome.status == .unauthorized, "attempt \(attempt)")
            }
            // Even the right password waits now, with a clear message and Retry-After.
            let throttled = try await Self.logIn(client, session, user: "Alice", password: "alice passphrase")
            #expect(throttled.status == .tooManyRequests)
            let wait = try #require(throttled.retryAfter.flatMap(Int.init))
            #expect((1...900).contains(wait))
            #expect(throttled.message.contains("Too many failed log-ins"))
            // Another account from the same address is not blocked by alice's count, and its success clears its own.
            let bob = try await Self.logIn(client, session, user: "bob", password: "bob passphrase")
            #expect(bob.status == .noContent)
            #expect(try database.loginFailures(.account, subject: "alice", since: Date().addingTimeInterval(-900)).count == 5)
            #expect(try database.loginFailures(.address, subject: "127.0.0.1", since: Date().addingTimeInterval(-900)).count == 5)
        }
    }

    @Test func twentyFailuresFromOneAddressAreThrottled() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            let session = try await Session.open(client)
            for attempt in 1...20 {
                let outcome = try await Self.logIn(client, session, user: "user\(attempt)", password: "guess")
                #expect(outcome.status == .unauthorized, "attempt \(attempt)")
            }
            let throttled = try await Self.logIn(client, session, user: "alice", password: "alice passphrase")
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.retryAfter != nil)
        }
    }

    @Test func aNewPasswordEndsAnOpenSessionAtOnce() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            let alice = try #require(try await Self.logIn(client, try await Session.open(client), user: "alice", password: "alice passphrase").cookie)
            let bob = try #require(try await Self.logIn(client, try await Session.open(client), user: "bob", password: "bob passphrase").cookie)
            #expect(try await Self.state(client, cookie: alice).loggedIn)
            try await database.setPassword(user: "alice", passwordHash: PasswordHash(password: "new passphrase", iterations: 1_000).encoded, now: Date())
            #expect(try await Self.state(client, cookie: alice).loggedIn == false)
            try await client.execute(uri: "/api/catalog/categories", method: .get, headers: [.cookie: alice]) { response in
                #expect(response.status == .unauthorized)
            }
            #expect(try await Self.state(client, cookie: bob).loggedIn, "only alice's log-ins end")
            try await database.removeUser(named: "bob")
            #expect(try await Self.state(client, cookie: bob).loggedIn == false)
            // Log-out removes the row: the cookie is worthless afterwards.
            let again = try #require(try await Self.logIn(client, try await Session.open(client), user: "alice", password: "new passphrase").cookie)
            let state = try await Self.state(client, cookie: again)
            try await client.execute(
                uri: "/api/session", method: .delete, headers: [.cookie: again, Self.csrfHeader: state.csrfToken]
            ) { response in
                #expect(response.status == .noContent)
            }
            #expect(try await Self.state(client, cookie: again).loggedIn == false)
        }
    }

    @Test func onlyAnOwnerChangesTheKeyAndIdentificationSettings() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            for (name, password, isMember) in [("bob", "bob passphrase", true), ("alice", "alice passphrase", false)] {
                let cookie = try #require(try await Self.logIn(client, try await Session.open(client), user: name, password: password).cookie)
                let csrf = try await Self.state(client, cookie: cookie).csrfToken
                let body = ByteBuffer(string: #"{"apiKey":"2b10abcdefghijklmnopqrstuv"}"#)
                try await client.execute(
                    uri: "/api/settings/api-key", method: .put,
                    headers: [.cookie: cookie, Self.csrfHeader: csrf, .contentType: "application/json"], body: body
                ) { response in
                    if isMember {
                        #expect(response.status == .forbidden)
                        #expect(response.text.contains("Only an owner"), "\(response.text)")
                    } else {
                        #expect(response.status != .forbidden, "an owner may")
                    }
                }
                // The page offers the key form to an owner only; a member reads what was chosen.
                try await client.execute(uri: "/settings", method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    #expect(response.text.contains(#"action="/settings/api-key""#) == !isMember, "\(name)")
                    #expect(response.text.contains("You are a member") == isMember, "\(name)")
                    #expect(response.text.contains(#"action="/settings/calendar-feed""#) == !isMember, "\(name)")
                    #expect(response.text.contains("An owner can make a secret address") == isMember, "\(name)")
                }
                // The identification settings, the calendar address and the re-check queue are an owner's to change.
                for (path, fields) in [
                    ("/settings/identification", "threshold=70"), ("/settings/calendar-feed", "action=revoke"),
                    ("/settings/recheck", "action=send"),
                    // The router ignores empty path parts: so does the check.
                    ("/settings/calendar-feed/", "action=revoke"), ("//settings/identification", "threshold=70"),
                    ("/settings//recheck/", "action=send"),
                    // So are the on-device models, which every household uses.
                    ("/settings/model/install", "architecture=resnet18"), ("/settings/model/remove", "model=x.pgmodel"),
                    ("/settings/model/cancel", "now=1"),
                ] {
                    try await client.execute(
                        uri: path, method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                        body: ByteBuffer(string: "\(fields)&_csrf=\(csrf)")
                    ) { response in
                        #expect((response.status == .forbidden) == isMember, "\(name) \(path): \(response.status)")
                        // The installation's settings and the household's are refused, each saying whose they are.
                        if isMember {
                            let expected = path.contains("identification") || path.contains("model") ? "identification settings" : "calendar address"
                            #expect(response.text.contains(expected), "\(path): \(response.text)")
                        }
                    }
                }
            }
        }
    }

    @Test func ownersManageAccountsInSettings() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            let bob = try #require(try await Self.logIn(client, try await Session.open(client), user: "bob", password: "bob passphrase").cookie)
            try await client.execute(uri: "/settings/users", method: .get, headers: [.cookie: bob]) { response in
                #expect(response.status == .forbidden)
            }
            let cookie = try #require(try await Self.logIn(client, try await Session.open(client), user: "alice", password: "alice passphrase").cookie)
            let csrf = try await Self.state(client, cookie: cookie).csrfToken
            try await client.execute(uri: "/settings/users", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("alice (you)") && response.text.contains("bob"))
            }
            func post(_ fields: [(String, String)]) async throws -> HTTPResponse.Status {
                let text = (fields + [("_csrf", csrf)]).map { "\($0.0)=\(urlComponent($0.1))" }.joined(separator: "&")
                return try await client.execute(
                    uri: "/settings/users", method: .post,
                    headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: text)
                ) { $0.status }
            }
            #expect(try await post([("action", "add"), ("name", "carol"), ("role", "member"), ("password", "carol passphrase")]) == .seeOther)
            #expect(try database.user(named: "carol")?.role == .member)
            #expect(try await post([("action", "add"), ("name", "Carol"), ("password", "carol passphrase")]) == .conflict, "a name taken in another letter case")
            #expect(try await post([("action", "add"), ("name", "dave"), ("password", "short")]) == .unprocessableContent)
            #expect(try await post([("action", "passwd"), ("name", "bob"), ("password", "bob's new passphrase")]) == .seeOther)
            #expect(try await Self.state(client, cookie: bob).loggedIn == false, "a reset ends bob's log-in")
            #expect(try await post([("action", "remove"), ("name", "alice")]) == .conflict, "the last owner stays")
            #expect(try await post([("action", "remove"), ("name", "carol")]) == .seeOther)
            #expect(try database.users().map(\.name) == ["alice", "bob"])
        }
    }

    @Test func ownersManageAccountsThroughTheAPI() async throws {
        let (database, home) = try Self.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.app(database).test(.live) { client in
            let bob = try #require(try await Self.logIn(client, try await Session.open(client), user: "bob", password: "bob passphrase").cookie)
            let bobCSRF = try await Self.state(client, cookie: bob).csrfToken
            try await client.execute(uri: "/api/users", method: .get, headers: [.cookie: bob]) { response in
                #expect(response.status == .forbidden, "a member does not see the accounts")
            }
            try await client.execute(uri: "/api/users/alice", method: .delete, headers: [.cookie: bob, Self.csrfHeader: bobCSRF]) {
                #expect($0.status == .forbidden, "nor removes one")
            }
            let alice = try #require(
                try await Self.logIn(client, try await Session.open(client), user: "alice", password: "alice passphrase").cookie
            )
            let csrf = try await Self.state(client, cookie: alice).csrfToken
            func send(_ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil) async throws -> (HTTPResponse.Status, String) {
                var headers: HTTPFields = [.cookie: alice, Self.csrfHeader: csrf]
                if json != nil { headers[.contentType] = "application/json" }
                return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) {
                    ($0.status, $0.text)
                }
            }
            // A server with accounts describes itself as one: reading needs the logged-in session.
            let (documented, document) = try await send(.get, "/openapi.json")
            #expect(documented == .ok)
            #expect(document == OpenAPIDocument.withAccounts)
            let (listed, list) = try await send(.get, "/api/users")
            #expect(listed == .ok)
            let users = try #require(
                (try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [String: Any])?["users"] as? [[String: Any]]
            )
            #expect(users.map { $0["name"] as? String } == ["alice", "bob"])
            #expect(users.map { $0["role"] as? String } == ["owner", "member"])
            #expect(users.map { $0["household"] as? Int } == [1, 1])
            #expect(!list.contains("pbkdf2"), "never a password hash")

            let (added, addedBody) = try await send(.post, "/api/users", #"{"name":"carol","password":"carol passphrase"}"#)
            #expect(added == .created)
            #expect(addedBody.contains(#""name":"carol""#) && addedBody.contains(#""role":"member""#), "\(addedBody)")
            #expect(try database.user(named: "carol")?.role == .member)
            #expect(try await send(.post, "/api/users", #"{"name":"CAROL","password":"carol passphrase"}"#).0 == .conflict)
            #expect(try await send(.post, "/api/users", #"{"name":"dave","password":"short"}"#).0 == .unprocessableContent)
            #expect(try await send(.post, "/api/users", #"{"name":"dave","password":"dave passphrase","role":"admin"}"#).0 == .unprocessableContent)
            #expect(try await send(.post, "/api/users", #"{"name":"da ve","password":"dave passphrase"}"#).0 == .unprocessableContent)
            #expect(try database.user(named: "dave") == nil)

            #expect(try await send(.put, "/api/users/bob/password", #"{"password":"bob's new passphrase"}"#).0 == .noContent)
            #expect(try await Self.state(client, cookie: bob).loggedIn == false, "a new password ends bob's log-in")
            #expect(try await send(.put, "/api/users/nobody/password", #"{"password":"a long passphrase"}"#).0 == .notFound)
            #expect(try await send(.delete, "/api/users/alice").0 == .conflict, "the last owner stays")
            #expect(try await send(.delete, "/api/users/nobody").0 == .notFound)
            #expect(try await send(.delete, "/api/users/carol").0 == .noContent)
            #expect(try database.users().map(\.name) == ["alice", "bob"])
        }
    }

    @Test func theAccountsAPIWithoutAccountsListsNoneAndSaysHowToAddOne() async throws {
        let (database, home) = try Self.database([])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.appWithoutAccountsYet(database).test(.live) { client in
            try await client.execute(uri: "/api/users", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text == #"{"users":[]}"#)
            }
            let session = try await Session.open(client)
            let headers: HTTPFields = [.cookie: session.cookie, Self.csrfHeader: session.csrf, .contentType: "application/json"]
            try await client.execute(
                uri: "/api/users", method: .post, headers: headers,
                body: ByteBuffer(string: #"{"name":"mallory","password":"a long passphrase"}"#)
            ) { response in
                #expect(response.status == .forbidden, "the first owner is made on the server's machine")
                #expect(response.text.contains("plantguide user add"), "\(response.text)")
            }
            try await client.execute(uri: "/api/users/mallory", method: .delete, headers: headers) { #expect($0.status == .notFound) }
            #expect(try database.userCount() == 0)
        }
    }

    @Test func anAccountAddedWhileServingTurnsTheLogInOn() async throws {
        let (database, home) = try Self.database([])
        defer { try? FileManager.default.removeItem(at: home) }
        try await Self.appWithoutAccountsYet(database).test(.live) { client in
            try await client.execute(uri: "/api/catalog/categories", method: .get) { response in
                #expect(response.status == .ok, "no accounts: no log-in on loopback")
            }
            _ = try await database.addUser(
                name: "alice", role: .owner, passwordHash: PasswordHash(password: "alice passphrase", iterations: 1_000).encoded, now: Date()
            )
            try await Task.sleep(for: .milliseconds(1_100))
            try await client.execute(uri: "/api/catalog/categories", method: .get) { response in
                #expect(response.status == .unauthorized, "an account exists now")
            }
            let session = try await Session.open(client)
            #expect(try await Self.logIn(client, session, user: nil, password: "alice passphrase").status == .noContent)
        }
    }
}
