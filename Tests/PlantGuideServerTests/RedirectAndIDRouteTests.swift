import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantStore
import Testing
@testable import PlantGuideServer

/// Log-in redirects stay on this site, ids are parsed strictly, unknown plants and tasks are 404, and HEAD
/// answers wherever GET does.
@Suite struct RedirectAndIDRouteTests {
    @Test(arguments: [
        ("/browse?q=x", "/browse?q=x"), ("/\t/evil.example", "/"), ("/\\evil.example", "/"), ("\\/evil.example", "/"),
        ("/\r\n/evil.example", "/"), ("/%2F/evil.example", "/"), ("/%5Cevil.example", "/"), ("/%252F/evil.example", "/"),
        ("//evil.example", "/"), ("https://evil.example/", "/"), ("/login?next=//evil", "/"), ("/ok/%2Fpath", "/ok/%2Fpath"),
        ("/collection?room=Living%20room", "/collection?room=Living%20room"), ("/a b", "/"),
    ])
    func logInRedirectsOnlyToSameOriginPaths(next: String, expected: String) {
        #expect(AuthRoutes.safeNext(next) == expected)
    }

    @Test func logInPageNeverRedirectsOffSite() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/login?next=/%09/evil.example", method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "/")
            }
        }
    }

    @Test func headAnswersWhereGetDoes() async throws {
        try await makeApp().test(.router) { client in
            for path in ["/", "/browse", "/healthz", "/api/catalog/plants"] {
                let type = try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.body.readableBytes > 0)
                    return response.headers[.contentType]
                }
                try await client.execute(uri: path, method: .head) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.body.readableBytes == 0)
                    #expect(response.headers[.contentType] == type, "\(path)")
                }
            }
        }
    }

    @Test func careForUnknownPlantsOrTasksIs404AndIdsAreStrict() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let collection = try #require(dependencies.collection)
        // Outside a request, the web app's store acts for household 1 only when told so.
        let (first, second) = try await HouseholdScope.$current.withValue(.home) {
            (try await collection.add(NewCollectionEntry(scientificName: "Monstera deliciosa")),
             try await collection.add(NewCollectionEntry(scientificName: "Dracaena trifasciata")))
        }
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            for id in ["999-water", "-\(second.id)-water", "+\(second.id)-water", "0\(second.id)-water", "\(second.id)-dance", "water"] {
                try await client.execute(uri: "/api/care/\(id)/done", method: .post, headers: headers) { response in
                    #expect(response.status == .notFound, "\(id)")
                }
                try await client.execute(uri: "/api/care/\(id)/snooze?days=2", method: .post, headers: headers) { response in
                    #expect(response.status == .notFound, "\(id)")
                }
            }
            for id in ["-\(first.id)", "+\(first.id)", "0\(first.id)"] {
                try await client.execute(uri: "/api/collection/\(id)", method: .get) { response in
                    #expect(response.status == .notFound, "\(id)")
                }
            }
            let detail = try await client.execute(uri: "/api/collection/\(second.id)", method: .get) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(detail.careLog.isEmpty)
            try await client.execute(uri: "/api/care/\(second.id)-water/done", method: .post, headers: headers) { response in
                #expect(response.status == .noContent)
            }
        }
    }
}
