import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import PlantGuideServer

@Suite struct OpenAPIDocumentTests {
    /// Every API route the router serves, as `METHOD /path` with `{param}` placeholders.
    static let apiRoutes: Set<String> = [
        "GET /api/session", "POST /api/session", "DELETE /api/session", "GET /api/status",
        "GET /api/catalog/plants", "GET /api/catalog/plants/{name}", "GET /api/catalog/categories",
        "POST /api/identify", "GET /api/collection", "POST /api/collection", "GET /api/collection/{id}", "PATCH /api/collection/{id}",
        "GET /api/care", "POST /api/care/{id}/done", "POST /api/care/{id}/snooze", "POST /api/care/{id}/check",
        "POST /api/care/undo/{plant}",
        "GET /api/settings", "PUT /api/settings/api-key", "GET /api/model/install", "POST /api/model/install",
        "GET /api/users", "POST /api/users", "DELETE /api/users/{name}", "PUT /api/users/{name}/password",
    ]

    static func documentedRoutes(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        return Set(paths.flatMap { path, methods in methods.keys.map { "\($0.uppercased()) \(path)" } })
    }

    @Test func documentIsOpenAPI31AndDescribesExactlyTheAPIRoutes() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
                try #expect(Self.documentedRoutes(document) == Self.apiRoutes)
                // A server without accounts says reading needs nothing.
                #expect(response.text == OpenAPIDocument.open)
            }
        }
    }

    @Test func everyDocumentedRouteIsServed() async throws {
        let store = FakeStore(now: Date())
        let dependencies = ServerDependencies(
            catalog: fixtureCatalog, identification: FakeIdentifier().capability(), collection: store.collection,
            care: store.care, settings: store.settings
        )
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            for route in Self.apiRoutes {
                let parts = route.split(separator: " ")
                let path = String(parts[1]).replacingOccurrences(of: "{name}", with: "Monstera%20deliciosa")
                    .replacingOccurrences(of: "{id}", with: "x")
                let method = HTTPRequest.Method(String(parts[0]))!
                try await client.execute(uri: path, method: method, headers: headers) { response in
                    // Wrong bodies give 4xx, but never "no such route" or "method not allowed".
                    #expect(response.status != .methodNotAllowed, "\(route)")
                    if response.status == .notFound {
                        try #expect(response.errorBody().message != "There is nothing at this address.", "\(route)")
                    }
                }
            }
        }
    }

    static func document(requiresLogin: Bool = false) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json(requiresLogin: requiresLogin).utf8)) as? [String: Any])
    }

    /// The refusals the request gate gives before any route runs are documented on every operation they can reach,
    /// and reading needs no credentials unless the server is exposed.
    @Test(arguments: [false, true])
    func everyOperationDocumentsTheGatesAnswersAndItsAuth(requiresLogin: Bool) throws {
        let paths = try #require(try Self.document(requiresLogin: requiresLogin)["paths"] as? [String: [String: [String: Any]]])
        for (path, operations) in paths {
            for (method, operation) in operations {
                let route = "\(method.uppercased()) \(path)"
                let codes = Set((operation["responses"] as? [String: Any] ?? [:]).keys)
                #expect(codes.contains("414"), "\(route)")
                if path != "/api/session" { #expect(codes.contains("401"), "\(route)") }
                let security = operation["security"] as? [[String: [String]]]
                if method == "get" {
                    let reading: [[String: [String]]] = requiresLogin ? [["session": []]] : []
                    #expect(security == (path == "/api/session" ? [] : reading), "\(route)")
                } else {
                    #expect(codes.isSuperset(of: ["403", "408", "413"]), "\(route)")
                    #expect(security == nil, "\(route) uses the document's cookie and anti-forgery token")
                }
            }
        }
    }

    /// Every `$ref` names a component the document has (schemathesis refuses an operation with one that does not).
    @Test func everyReferenceResolves() throws {
        let document = try Self.document()
        var references: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String { references.append(reference) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(references.count > 50)
        for reference in Set(references) {
            var node: Any? = document
            for part in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
            #expect(node != nil, "\(reference) does not resolve")
        }
    }

    @Test func undocumentedMethodsAtAPIAddressesAre405WithAllow() async throws {
        #expect(OpenAPIDocument.methods(atPath: "/api/collection/7") == ["GET", "HEAD", "PATCH"])
        #expect(OpenAPIDocument.methods(atPath: "/api/identify") == ["POST"])
        #expect(OpenAPIDocument.methods(atPath: "/api/collection/7/x") == nil)
        #expect(OpenAPIDocument.methods(atPath: "/api/collection/") == nil)
        try await makeApp().test(.router) { client in
            for (path, allow) in [("/api/identify", "POST"), ("/api/collection/7", "GET, HEAD, PATCH"), ("/api/session", "DELETE, GET, HEAD, POST")] {
                try await client.execute(uri: path, method: .trace) { response in
                    #expect(response.status == .methodNotAllowed, "\(path)")
                    #expect(response.headers[.allow] == allow, "\(path)")
                    try #expect(response.errorBody().status == 405)
                }
            }
            // A state-changing method an address does not answer is 405 too, without a session or token: there is
            // nothing to forge, so the anti-forgery check does not answer first.
            for (path, method) in [("/api/care", HTTPRequest.Method.put), ("/api/catalog/categories", .post), ("/api/status", .delete)] {
                try await client.execute(uri: path, method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                    #expect(response.headers[.allow] != nil)
                }
            }
            try await client.execute(uri: "/api/nothing", method: .trace) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// The `scientificName` pattern of the document and the server's blank check agree on every character.
    @Test func blankNamesAreFoundationWhiteSpace() {
        for value in Array(0...0x3100) + [0xFEFF, 0x1F331] {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(CollectionRoutes.blankScalars.contains(scalar) == CharacterSet.whitespacesAndNewlines.contains(scalar), "U+\(String(value, radix: 16))")
        }
    }

    @Test func apiRequestsValidAgainstTheDocumentAreAcceptedAndOthersRefused() async throws {
        let store = FakeStore(now: Date())
        let dependencies = ServerDependencies(catalog: fixtureCatalog, collection: store.collection, care: store.care, settings: store.settings)
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            headers[.contentType] = "application/json"
            // The API key is taken as sent: the pattern has no room for spaces.
            for (key, status) in [("abcd-123_XY", HTTPResponse.Status.noContent), (" abcd-123_XY", .badRequest), ("abcdéfgh", .badRequest), ("short", .badRequest)] {
                let body = ByteBuffer(string: #"{"apiKey": "\#(key)"}"#)
                try await client.execute(uri: "/api/settings/api-key", method: .put, headers: headers, body: body) { response in
                    #expect(response.status == status, "\(key)")
                }
            }
            // A name of only white space is none; null optional fields are absent ones.
            for (name, status) in [(#"\u3000\n"#, HTTPResponse.Status.badRequest), (#"\u00e9"#, .created), (#" Monstera deliciosa "#, .created)] {
                let body = ByteBuffer(string: #"{"scientificName": "\#(name)", "room": null, "nickname": null, "uploadId": null}"#)
                try await client.execute(uri: "/api/collection", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == status, "\(name)")
                }
            }
            // `+` in a query is a space, as forms and HTTP clients send it.
            try await client.execute(uri: "/api/catalog/plants?q=monstera+deliciosa&category=Tropical+Foliage", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                let list = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(list.plants.first?.scientificName == "Monstera deliciosa")
            }
        }
    }
}

