import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideLive
import Synchronization
import Testing
@testable import PlantGuideServer

@Suite struct SecurityRouteTests {
    /// A password hash that is quick to check in tests.
    static let hash = PasswordHash(password: "correct horse battery", iterations: 1000)

    static func exposed(now: @escaping @Sendable () -> Date = Date.init) -> some ApplicationProtocol {
        makeApp(
            configuration: ServerConfiguration(host: "0.0.0.0", passwordHash: hash),
            dependencies: ServerDependencies(catalog: fixtureCatalog, now: now)
        )
    }

    @Test func formsWithoutTheTokenAreRefused() async throws {
        let store = FakeStore(now: Date())
        let app = makeApp(dependencies: ServerDependencies(catalog: fixtureCatalog, settings: store.settings))
        try await app.test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("apiKey", "abcdefgh12345")], includeToken: false)
            try await client.execute(uri: "/settings/api-key", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .forbidden)
                #expect(response.text.contains("Reload the page"))
            }
            let (_, forged) = session.form([("apiKey", "abcdefgh12345"), ("_csrf", "0000")], includeToken: false)
            try await client.execute(uri: "/settings/api-key", method: .post, headers: headers, body: forged) { response in
                #expect(response.status == .forbidden)
            }
            #expect(store.state.withLock { $0.apiKey } == nil)
        }
    }

    @Test func aTokenFromAnotherSessionIsRefused() async throws {
        try await makeApp(dependencies: ServerDependencies(catalog: fixtureCatalog, identification: FakeIdentifier().capability()))
            .test(.router)
        { client in
            let mine = try await Session.open(client)
            let theirs = try await Session.open(client)
            #expect(mine.cookie != theirs.cookie)
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            form.field("_csrf", theirs.csrf)
            let (headers, body) = mine.multipart(form, includeToken: false)
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .forbidden)
                try #expect(response.errorBody().status == 403)
            }
        }
    }

    @Test func apiCallsMaySendTheTokenAsAHeader() async throws {
        let store = FakeStore(now: Date())
        try await makeApp(dependencies: ServerDependencies(settings: store.settings)).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[.contentType] = "application/json"
            headers[RequestGate.csrfHeader] = session.csrf
            try await client.execute(
                uri: "/api/settings/api-key", method: .put, headers: headers, body: ByteBuffer(string: #"{"apiKey":"2b10abcdefghijkl"}"#)
            ) { response in
                #expect(response.status == .noContent)
            }
            #expect(store.state.withLock { $0.apiKey } == "2b10abcdefghijkl")
            headers[RequestGate.csrfHeader] = "wrong"
            try await client.execute(
                uri: "/api/settings/api-key", method: .put, headers: headers, body: ByteBuffer(string: #"{"apiKey":"zzzzzzzzzzzz"}"#)
            ) { response in
                #expect(response.status == .forbidden)
            }
        }
    }

    @Test(arguments: ["/", "/browse", "/identify", "/collection", "/care", "/settings"])
    func exposedServerSendsPagesToTheLogIn(path: String) async throws {
        try await Self.exposed().test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location]?.hasPrefix("/login?next=") == true)
            }
        }
    }

    @Test(arguments: ["/api/catalog/plants?q=fern", "/api/status", "/api/collection", "/api/care", "/api/settings", "/openapi.json"])
    func exposedServerRefusesAPICallsWithoutASession(path: String) async throws {
        try await Self.exposed().test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .unauthorized)
                try #expect(response.errorBody() == APIErrorBody(status: 401, message: "Log in first."))
            }
        }
    }

    @Test func exposedServerRefusesUploadsWithoutASession() async throws {
        try await Self.exposed().test(.router) { client in
            var form = Multipart()
            form.file("photo", "leaf.jpg", jpegBytes)
            try await client.execute(uri: "/api/identify", method: .post, headers: [.contentType: form.contentType], body: form.body) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func logInWithThePasswordOpensEveryPageWithAFreshSession() async throws {
        try await Self.exposed().test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/login", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains(#"type="password""#))
            }
            let (headers, body) = session.form([("password", "correct horse battery"), ("next", "/browse")])
            let cookie = try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/browse")
                return String((response.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            }
            #expect(cookie.hasPrefix("pg_session="))
            #expect(cookie != session.cookie)
            try await client.execute(uri: "/browse", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Log out"))
            }
            try await client.execute(uri: "/browse", method: .get, headers: session.headers) { response in
                #expect(response.status == .found)
            }
        }
    }

    @Test func failedLogInsAreRateLimited() async throws {
        try await Self.exposed().test(.router) { client in
            let session = try await Session.open(client)
            for _ in 0..<5 {
                let (headers, body) = session.form([("password", "guess")])
                try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.text.contains("That user name or password is not right."))
                }
            }
            let (headers, body) = session.form([("password", "correct horse battery")])
            try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .tooManyRequests)
                let wait = try #require(response.headers[.retryAfter].flatMap(Int.init))
                #expect(wait > 0 && wait <= 900)
            }
        }
    }

    /// Behind a trusted proxy every connection comes from the proxy: failed log-ins are counted per client address
    /// the proxy reports, so one guesser does not lock everyone out; an untrusted peer's header is ignored.
    @Test func behindATrustedProxyLogInsAreThrottledPerForwardedClient() async throws {
        var configuration = ServerConfiguration(host: "0.0.0.0", passwordHash: Self.hash)
        configuration.trustedProxies = ["local"]
        try await makeApp(configuration: configuration, dependencies: ServerDependencies(catalog: fixtureCatalog)).test(.router) { client in
            let session = try await Session.open(client)
            func logIn(_ password: String, from address: String) async throws -> HTTPResponse.Status {
                var (headers, body) = session.form([("password", password)])
                headers[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.9, \(address)"
                return try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { $0.status }
            }
            for _ in 0..<5 { #expect(try await logIn("guess", from: "192.0.2.1") == .unauthorized) }
            #expect(try await logIn("guess", from: "192.0.2.1") == .tooManyRequests)
            // Another client behind the same proxy is not locked out.
            #expect(try await logIn("correct horse battery", from: "192.0.2.2") == .seeOther)
        }
    }

    @Test func throttleForgetsFailuresAfterTheWindow() {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let throttle = LoginThrottle(maximumFailures: 2, window: 60) { clock.withLock { $0 } }
        throttle.recordFailure(client: "a")
        throttle.recordFailure(client: "a")
        #expect(throttle.retryAfter(client: "a") == 60)
        #expect(throttle.retryAfter(client: "b") == nil)
        clock.withLock { $0 += 61 }
        #expect(throttle.retryAfter(client: "a") == nil)
    }

    @Test func sessionsExpire() {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let store = SessionStore(lifetime: 60, now: { clock.withLock { $0 } })
        let id = store.newSessionID()
        #expect(store.isWellFormed(id))
        #expect(!store.isWellFormed("x; Path=/"))
        store.logIn(id)
        #expect(store.isLoggedIn(id))
        clock.withLock { $0 += 61 }
        #expect(!store.isLoggedIn(id))
    }

    @Test func apiClientsLogInWithJSON() async throws {
        try await Self.exposed().test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[.contentType] = "application/json"
            headers[RequestGate.csrfHeader] = session.csrf
            let cookie = try await client.execute(
                uri: "/api/session", method: .post, headers: headers, body: ByteBuffer(string: #"{"password":"correct horse battery"}"#)
            ) { response in
                #expect(response.status == .noContent)
                return String((response.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            }
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func logInRedirectsOnlyToLocalPaths() {
        #expect(AuthRoutes.safeNext("/browse?q=x") == "/browse?q=x")
        #expect(AuthRoutes.safeNext("//evil.example/") == "/")
        #expect(AuthRoutes.safeNext("https://evil.example/") == "/")
        #expect(AuthRoutes.safeNext(nil) == "/")
    }

    @Test func exposingTheServerNeedsAPassword() throws {
        #expect(throws: ServerError.self) { try ServerConfiguration(host: "0.0.0.0").validate() }
        try ServerConfiguration(host: "0.0.0.0", passwordHash: Self.hash).validate()
        try ServerConfiguration(host: "127.0.0.1").validate()
        try ServerConfiguration(host: "::1").validate()
    }

    @Test func passwordHashMatchesPBKDF2TestVectorsAndRoundTrips() throws {
        let one = PasswordHash.derive(password: Data("password".utf8), salt: Data("salt".utf8), iterations: 1)
        #expect(one.map { String(format: "%02x", $0) }.joined() == "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b")
        let many = PasswordHash.derive(password: Data("password".utf8), salt: Data("salt".utf8), iterations: 4096)
        #expect(many.map { String(format: "%02x", $0) }.joined() == "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a")
        let parsed = try #require(PasswordHash(encoded: Self.hash.encoded))
        #expect(parsed.verify("correct horse battery"))
        #expect(!parsed.verify("correct horse batterY"))
        #expect(PasswordHash(encoded: "plain-text-password") == nil)
        #expect(!"\(Self.hash)".contains(Self.hash.hash.base64EncodedString()))
    }

    @Test(arguments: [("password", "salt", 2), ("correct horse battery", "NaCl and more salt", 1_000), ("", "s", 7)])
    func theLibraryAndTheStandInDeriveTheSameKey(password: String, salt: String, iterations: Int) {
        // Hashes stored before the library took over must keep verifying, and the stand-in must stay correct.
        let library = PasswordHash.derive(password: Data(password.utf8), salt: Data(salt.utf8), iterations: iterations)
        let standIn = PasswordHash.deriveByHMAC(password: Data(password.utf8), salt: Data(salt.utf8), iterations: iterations)
        #expect(library.count == 32)
        #expect(library == standIn)
    }
}
