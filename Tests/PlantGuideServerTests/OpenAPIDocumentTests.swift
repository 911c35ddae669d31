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
        "POST /api/identify", "GET /api/collection", "POST /api/collection", "GET /api/collection/{id}",
        "GET /api/care", "POST /api/care/{id}/done", "POST /api/care/{id}/snooze",
        "GET /api/settings", "PUT /api/settings/api-key",
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
}
