import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantForms
import PlantGuideCore
import Testing
@testable import PlantGuideServer

/// Requests over a limit an attacker on the network would send: each is refused with a 4xx that names the
/// limit, before any work whose cost grows with the request.
@Suite struct InputLimitRouteTests {
    @Test func anOverlongURLIs414WithTheLimit() async throws {
        try await makeApp().test(.router) { client in
            let query = String(repeating: "a", count: InputLimits.urlBytes)
            try await client.execute(uri: "/api/catalog/plants?q=\(query)", method: .get) { response in
                #expect(response.status == .uriTooLong)
                try #expect(response.errorBody().message == "The address is longer than the limit of 8 KB.")
            }
        }
    }

    @Test func searchesOverTheQueryLimitsAre400WithTheLimit() async throws {
        try await makeApp().test(.router) { client in
            let long = String(repeating: "monstera", count: 50)
            try await client.execute(uri: "/api/catalog/plants?q=\(long)", method: .get) { response in
                #expect(response.status == .badRequest)
                try #expect(response.errorBody().message == "The search is longer than 200 characters. Search for a shorter name.")
            }
            let words = Array(repeating: "fern", count: InputLimits.queryWords + 1).joined(separator: "+")
            try await client.execute(uri: "/browse?q=\(words)", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("more than 12 words"))
            }
            try await client.execute(uri: "/api/catalog/plants?q=monstera+deliciosa", method: .get) { response in
                #expect(response.status == .ok)
                let list = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(list.plants.first?.scientificName == "Monstera deliciosa")
            }
        }
    }

    @Test(arguments: [
        ("nickname", InputLimits.nicknameCharacters), ("room", InputLimits.roomCharacters),
        ("scientificName", InputLimits.plantNameCharacters),
    ])
    func overlongNamesAre422WithTheLimit(field: String, limit: Int) async throws {
        let store = FakeStore(now: Date())
        try await makeApp(dependencies: ServerDependencies(catalog: fixtureCatalog, collection: store.collection)).test(.router) { client in
            let session = try await Session.open(client)
            var fields = [("scientificName", "Monstera deliciosa")]
            fields.removeAll { $0.0 == field }
            fields.append((field, String(repeating: "é", count: limit + 1)))
            let (headers, body) = session.form(fields)
            try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.text.contains("longer than \(limit) characters"))
            }
            fields[fields.count - 1].1 = String(repeating: "é", count: limit)
            let (atLimit, atLimitBody) = session.form(fields)
            try await client.execute(uri: "/collection", method: .post, headers: atLimit, body: atLimitBody) { response in
                #expect(response.status == .seeOther)
            }
            #expect(store.state.withLock { $0.entries.count } == 1)
        }
    }

    @Test func jsonBodiesOverTheLimitAre413WithTheLimit() async throws {
        let store = FakeStore(now: Date())
        try await makeApp(dependencies: ServerDependencies(catalog: fixtureCatalog, collection: store.collection)).test(.router) { client in
            let session = try await Session.open(client)
            var headers = session.headers
            headers[RequestGate.csrfHeader] = session.csrf
            headers[.contentType] = "application/json"
            let padding = String(repeating: " ", count: InputLimits.jsonBodyBytes)
            let body = ByteBuffer(string: "{\"scientificName\": \"Monstera deliciosa\"\(padding)}")
            try await client.execute(uri: "/api/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .contentTooLarge)
                try #expect(response.errorBody().message == "The request body is larger than the limit of 64 KB.")
            }
            #expect(store.state.withLock { $0.entries.isEmpty })
        }
    }

    // MARK: - Forms

    @Test func aHugeBoundaryIsRefusedBeforeTheBodyIsParsed() async throws {
        let store = FakeStore(now: Date())
        let identifier = FakeIdentifier()
        let dependencies = ServerDependencies(catalog: fixtureCatalog, identification: identifier.capability(), settings: store.settings)
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            let boundary = String(repeating: "b", count: 32_000)
            let body = ByteBuffer(string: "--" + String(repeating: "b", count: 1_000_000))
            let headers: HTTPFields = [.cookie: session.cookie, .contentType: "multipart/form-data; boundary=\(boundary)"]
            // The upload route takes large bodies, so the boundary itself is what is refused.
            try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .badRequest)
                try #expect(response.errorBody().message == "The multipart boundary is longer than 70 characters (RFC 2046).")
            }
            // Any other form is refused by its size first.
            try await client.execute(uri: "/settings/api-key", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.text.contains("limit of 64 KB"))
            }
            #expect(identifier.calls.withLock { $0 } == 0)
        }
    }

    @Test func formsWithoutASessionAreRefusedUnread() async throws {
        let store = FakeStore(now: Date())
        try await makeApp(dependencies: ServerDependencies(settings: store.settings)).test(.router) { client in
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: "/login", method: .post, headers: headers, body: ByteBuffer(string: "password=x&_csrf=y")) { response in
                #expect(response.status == .forbidden)
            }
        }
    }

    @Test func tooManyPartsAndOverlongFieldsAre413() async throws {
        let store = FakeStore(now: Date())
        try await makeApp(dependencies: ServerDependencies(settings: store.settings)).test(.router) { client in
            let session = try await Session.open(client)
            var crowded = Multipart()
            for index in 0..<InputLimits.formParts { crowded.field("f\(index)", "x") }
            let (headers, body) = session.multipart(crowded)
            try await client.execute(uri: "/settings/api-key", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.text.contains("more than 32 fields"))
            }
            let (formHeaders, formBody) = session.form([("apiKey", String(repeating: "k", count: InputLimits.formFieldBytes + 1))])
            try await client.execute(uri: "/settings/api-key", method: .post, headers: formHeaders, body: formBody) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.text.contains("limit of 16 KB"))
            }
            #expect(store.state.withLock { $0.apiKey } == nil)
        }
    }

    @Test func multipartParsingFindsBoundariesThatOverlapThemselves() throws {
        // A delimiter whose prefix repeats makes a naive scan back up; the linear one must still find it.
        let boundary = "aaaaaaaab"
        let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n\r\n--aaaaaaa\r\n--aaaaaaaaab\r\n--\(boundary)--\r\n"
        let form = try #require(try FormData.parse(contentType: "multipart/form-data; boundary=\(boundary)", body: Data(body.utf8)))
        #expect(form["x"] == "\r\n--aaaaaaa\r\n--aaaaaaaaab")
        #expect(ByteFinder(Array("abab".utf8)).firstIndex(in: Array("aabababab".utf8), from: 0) == 1)
        #expect(ByteFinder(Array("abab".utf8)).firstIndex(in: Array("aabababab".utf8), from: 2) == 3)
        #expect(ByteFinder(Array("abc".utf8)).firstIndex(in: Array("ababab".utf8), from: 0) == nil)
    }
}
