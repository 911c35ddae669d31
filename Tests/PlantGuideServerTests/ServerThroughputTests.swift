import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PlantCatalog
import PlantGuideCore
import Testing
@testable import PlantGuideServer

/// The per-request work made cheap for throughput (issue 14): each fast path gives what the general code gave,
/// and the load check's bare route exists only when asked for.
@Suite struct ServerThroughputTests {
    static func application(benchmarkRoutes: Bool) throws -> some ApplicationProtocol {
        var configuration = ServerConfiguration(port: 0)
        configuration.benchmarkRoutes = benchmarkRoutes
        var logger = Logger(label: "plantguide.test")
        logger.logLevel = .critical
        return try buildApplication(
            configuration: configuration, dependencies: ServerDependencies(catalog: fixtureCatalog), logger: logger
        )
    }

    @Test func theBareBenchmarkRouteIsUnknownInNormalRuns() async throws {
        try await Self.application(benchmarkRoutes: false).test(.router) { client in
            try await client.execute(uri: "/__benchmark/json?bytes=500", method: .get) { response in
                #expect(response.status == .notFound)
                // The app's error page, through the app's middleware.
                #expect(response.headers[.contentSecurityPolicy] != nil)
            }
            // The app itself still answers.
            try await client.execute(uri: "/api/catalog/plants?q=monstera", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func theBareBenchmarkRouteAnswersAConstantBodyOfTheAskedSize() async throws {
        try await Self.application(benchmarkRoutes: true).test(.router) { client in
            for size in [64, 500, 4096] {
                try await client.execute(uri: "/__benchmark/json?bytes=\(size)", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.body.readableBytes == size)
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                    let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    #expect(object?["padding"]?.count == size - 14)
                    // Bare: none of the app's middleware ran (no security headers, no session cookie).
                    #expect(response.headers[.contentSecurityPolicy] == nil)
                    #expect(response.headers[.setCookie] == nil)
                }
            }
            try await client.execute(uri: "/__benchmark/json?bytes=10", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            // Everything else is the app as always.
            try await client.execute(uri: "/api/catalog/plants?q=monstera", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy] != nil)
            }
        }
    }

    /// The hand-written JSON of the catalog answers is JSONEncoder's, byte for byte, for the whole bundled catalog
    /// and for names with characters JSON escapes.
    @Test func catalogAnswersAreWhatJSONEncoderWrites() throws {
        let catalog = PlantCatalog()
        var plants = try catalog.allPlants()
        #expect(plants.count > 500)
        plants.append(CatalogPlant(
            scientificName: #"Odd "quoted" \ name / with slash"#, commonNames: ["Ünïcødé ×", "\u{2028}line", ""],
            family: "Araceae", category: .fern
        ))
        let bodies: [any JSONWritable] = [
            PlantListBody(count: plants.count, plants: plants),
            PlantListBody(count: 0, plants: []),
            PlantDetailBody(plant: plants[0], related: Array(plants.prefix(7))),
        ]
        for body in bodies {
            var writer = JSONWriter()
            body.write(to: &writer)
            #expect(!writer.failed)
            #expect(Data(buffer: writer.buffer) == (try JSONResponse.encoder.encode(body)))
        }
        // Control characters are left to JSONEncoder, whose escapes the API has always had.
        let control = PlantListBody(count: 1, plants: [
            CatalogPlant(scientificName: "Tab\there", commonNames: ["bell\u{07}"], family: "F", category: .cactus)
        ])
        var writer = JSONWriter()
        control.write(to: &writer)
        #expect(writer.failed)
    }

    /// The search API answers through the writer, and the answer decodes as it always did.
    @Test func theSearchAnswerIsTheEncodersThroughTheRoute() async throws {
        try await makeApp().test(.router) { client in
            // Asked twice: the second answer is the first, written once.
            for _ in 0..<2 {
                try await client.execute(uri: "/api/catalog/plants?q=monstera", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                    #expect(response.headers[.contentSecurityPolicy] != nil)
                    let body = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                    #expect(body.count == 2 && body.plants.count == 2)
                    #expect(Data(buffer: response.body) == (try JSONResponse.encoder.encode(body)))
                }
            }
            // Another limit, category or family is another answer.
            try await client.execute(uri: "/api/catalog/plants?q=monstera&limit=1", method: .get) { response in
                let body = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(body.count == 2 && body.plants.count == 1)
            }
            try await client.execute(uri: "/api/catalog/plants?q=monstera&category=cactus", method: .get) { response in
                let body = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(body.count == 0)
            }
            try await client.execute(uri: "/api/catalog/plants?q=monstera&family=Cactaceae", method: .get) { response in
                let body = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(body.count == 0)
            }
            try await client.execute(uri: "/api/catalog/plants?q=monstera&limit=0", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func logLinesKeepTheirShape() throws {
        let handler = {
            var handler = JSONLogHandler(label: "plantguide.server")
            handler[metadataKey: "hb.request.id"] = "42"
            handler[metadataKey: "path"] = "overridden"
            return handler
        }()
        let date = Date(timeIntervalSince1970: 1_780_000_000.75)
        let event = LogEvent(
            level: .info, message: "request",
            metadata: ["path": "/api/identify", "status": "200", "ms": "0.4", "note": "quote \" backslash \\ tab \t bell \u{07} é"],
            source: "test", file: #fileID, function: #function, line: #line
        )
        let line = String(decoding: handler.line(event, date: date), as: UTF8.self)
        #expect(line.hasSuffix("}\n"))
        // Sorted keys: what scripts/load-check greps for.
        #expect(line.contains(#""msg":"request","note":"#))
        #expect(line.contains(#""path":"/api/identify","status":"200","ts":"2026-05-28T20:26:40Z"}"#))
        #expect(line.hasPrefix(#"{"hb.request.id":"42","label":"plantguide.server","level":"info","ms":"0.4","#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["note"] == "quote \" backslash \\ tab \t bell \u{07} é")
        #expect(line.contains(#"\u0007"#))
        for seconds in [0.0, 86_399.9, 951_782_400, 1_780_000_000.999, 4_102_444_799] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(JSONLogHandler.timestamp(date) == date.formatted(.iso8601), "\(seconds)")
        }
    }

    /// A Browse list made for one request is used again for the next, inside each request's own page: another
    /// session's log-out form and token are its own, and another search, category or page is its own list.
    @Test func browseListsAreMadeOnceAndShownInEachSessionsPage() async throws {
        try await SecurityRouteTests.exposed().test(.router) { client in
            func loggedIn() async throws -> (cookie: String, csrf: String) {
                let session = try await Session.open(client)
                let (headers, body) = session.form([("password", "correct horse battery"), ("next", "/browse")])
                let cookie = try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                    String((response.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
                }
                let csrf = try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: cookie]) { response in
                    try JSONDecoder().decode(SessionBody.self, from: Data(buffer: response.body)).csrfToken
                }
                return (cookie, csrf)
            }
            let first = try await loggedIn(), second = try await loggedIn()
            #expect(first.csrf != second.csrf)
            func page(_ uri: String, _ cookie: String) async throws -> String {
                try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    return response.text
                }
            }
            let mine = try await page("/browse?q=monstera", first.cookie)
            let theirs = try await page("/browse?q=monstera", second.cookie)
            #expect(mine.contains(first.csrf) && !mine.contains(second.csrf))
            #expect(theirs.contains(second.csrf) && !theirs.contains(first.csrf))
            #expect(mine.replacingOccurrences(of: first.csrf, with: "") == theirs.replacingOccurrences(of: second.csrf, with: ""))
            #expect(mine.contains("Monstera deliciosa") && mine.contains("2 plants"))
            let partial = try await page("/browse?q=monstera&partial=1", first.cookie)
            #expect(!partial.contains("<html") && mine.contains(partial))
            // Other lists are their own.
            let cacti = try await page("/browse?q=monstera&category=cactus", first.cookie)
            #expect(!cacti.contains("Monstera deliciosa"))
            let everything = try await page("/browse", first.cookie)
            #expect(everything.contains("Echeveria elegans") && everything.contains("6 plants"))
            try await client.execute(uri: "/browse?q=monstera&page=2", method: .get, headers: [.cookie: first.cookie]) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// Only successful catalog and static reads go to debug; changes, identifications and errors stay at info.
    @Test func routineReadsAreLoggedAtDebugAndTheRestAtInfo() {
        func request(_ method: HTTPRequest.Method, _ path: String) -> Request {
            Request(head: HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: path), body: .init(buffer: ByteBuffer()))
        }
        typealias Log = RequestLogMiddleware<AppRequestContext>
        #expect(Log.isRoutineRead(request(.get, "/api/catalog/plants?q=monstera"), status: .ok))
        #expect(Log.isRoutineRead(request(.get, "/browse?q=fern"), status: .ok))
        #expect(Log.isRoutineRead(request(.head, "/static/app.css"), status: .ok))
        #expect(Log.isRoutineRead(request(.get, "/plants/Monstera%20deliciosa"), status: .ok))
        #expect(!Log.isRoutineRead(request(.get, "/plants/Nothing"), status: .notFound))
        #expect(!Log.isRoutineRead(request(.get, "/api/catalog/plants?q=\(String(repeating: "a", count: 300))"), status: .badRequest))
        #expect(!Log.isRoutineRead(request(.post, "/api/identify"), status: .ok))
        #expect(!Log.isRoutineRead(request(.get, "/collection"), status: .ok))
        #expect(!Log.isRoutineRead(request(.get, "/browsed"), status: .ok))
    }

    @Test func requestDurationsKeepOneDecimal() {
        // Ties aside (printf rounds those to even), the same text as before.
        for milliseconds in [0.0, 0.04, 0.449, 1.26, 12.0, 99.96, 1234.56] {
            let duration = Duration.nanoseconds(Int64(milliseconds * 1_000_000))
            #expect(RequestLogMiddleware<AppRequestContext>.tenths(duration) == String(format: "%.1f", duration.inMilliseconds), "\(milliseconds)")
        }
    }

    @Test func sessionIdsAndTokensAreWhatTheyWere() throws {
        let secret = Data((0..<32).map { UInt8($0) })
        let store = SessionStore(secret: secret)
        var seen = Set<String>()
        for _ in 0..<200 {
            let id = store.newSessionID()
            #expect(store.isWellFormed(id))
            seen.insert(id)
            // Unpadded base64url of 32 random bytes.
            let base64 = id.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
            #expect(Data(base64Encoded: base64)?.count == 32)
            #expect(store.verifyCSRF(store.csrfToken(for: id), sessionID: id))
            #expect(!store.verifyCSRF(store.csrfToken(for: id), sessionID: store.newSessionID()))
        }
        #expect(seen.count == 200)
        // The token is the HMAC-SHA256 of "csrf:" + id under the secret, in lower-case hex (Python's hmac agrees).
        let id = String(repeating: "A", count: 43)
        #expect(store.csrfToken(for: id) == "9517baa9af012dc1459c2e0487e8e9cf64c0b170733082f293db7e38a850a116")
        #expect(SessionStore.idHash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func escapingAndURLEncodingAreWhatFoundationGave() throws {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let names = try PlantCatalog().allPlants().flatMap { [$0.scientificName] + $0.commonNames }
        let tricky = ["", "plain", "a b", "Mother-in-law's Tongue", "<script>\"&'</script>", "50% off/€ & ×", "e\u{301}&", "~._-"]
        for text in names + tricky {
            #expect(urlComponent(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text)")
            var expected = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": expected += "&amp;"
                case "<": expected += "&lt;"
                case ">": expected += "&gt;"
                case "\"": expected += "&quot;"
                case "'": expected += "&#39;"
                default: expected.unicodeScalars.append(scalar)
                }
            }
            #expect(HTML.escape(text) == expected, "\(text)")
        }
        for category in PlantCategory.allCases {
            #expect(CategoryIcon.svg(category).markup.contains(CategoryIcon.path(category)))
        }
    }
}
