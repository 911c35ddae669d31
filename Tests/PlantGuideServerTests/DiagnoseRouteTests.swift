import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideServer

/// A data directory with a Boston fern in its collection, the Pl@ntNet stand-in, and the live dependencies over both.
private struct DiagnoseFixture {
    let home: URL
    let database: CollectionDatabase
    let fern: Plant
    let stub: PlantNetStub
    let dependencies: ServerDependencies
    let photo: Data

    static func make() async throws -> DiagnoseFixture {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        let fern = try database.addPlant(
            NewPlant(name: "Boston fern", species: "Nephrolepis exaltata"),
            profile: try CareGuide.bundled().profile(genus: "Nephrolepis", category: nil), photo: nil, now: Date()
        )
        let stub = try await PlantNetStub.start()
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key"]
        )
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        return DiagnoseFixture(home: home, database: database, fern: fern, stub: stub, dependencies: dependencies, photo: photo)
    }

    func cleanUp() {
        let stub = stub
        Task { await stub.stop() }
        try? FileManager.default.removeItem(at: home)
    }
}

/// "Something wrong?" end to end: the real store, the real Pl@ntNet client and the stand-in's disease service.
@Suite struct DiagnoseRouteTests {
    @Test func aPlantsDiagnosisHasItsOwnAddressWithItsCareFactsAndAReloadSendsNothing() async throws {
        let fixture = try await DiagnoseFixture.make()
        defer { fixture.cleanUp() }
        let (fern, stub, dependencies, photo) = (fixture.fern, fixture.stub, fixture.dependencies, fixture.photo)
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/collection/\(fern.id)", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("href=\"/diagnose?plant=\(fern.id)\">Something wrong?</a>"))
            }
            try await client.execute(uri: "/diagnose?plant=\(fern.id)", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("What’s wrong with Nephrolepis exaltata?"))
                #expect(response.text.contains("name=\"plant\" value=\"\(fern.id)\""))
                #expect(!response.text.contains("<option value=\"habit\""))
            }
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("organ", "leaf")
            form.field("plant", "\(fern.id)")
            let (headers, body) = session.multipart(form)
            let location = try await client.execute(uri: "/diagnose", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther, "\(response.text)")
                return response.headers[.location] ?? ""
            }
            #expect(location.hasPrefix("/diagnose/results?photos=") && location.contains("&organs=leaf&lang=en&plant=\(fern.id)"))
            let page = try await client.execute(uri: location, method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                return response.text
            }
            #expect(page.contains("Possible problems of Nephrolepis exaltata"))
            #expect(page.contains("<strong>Grey mould</strong> <span class=\"meta\">EPPO BOTRCI</span>"))
            #expect(page.contains("<strong>Two-spotted spider mite</strong>"))
            #expect(page.contains("<strong>EPPO ZZSTUB</strong> <span class=\"meta\">(not in Pl@ntNet’s disease list)</span>"))
            #expect(page.contains("/identify/reference-photos/"))  // Pl@ntNet's photos, kept on this server
            #expect(page.contains("What to do next") && page.contains("no candidate scores 70 % or more"))
            #expect(page.contains("Things to check about Nephrolepis exaltata") && page.contains("Watered 0 times in the last 30 days"))
            #expect(page.contains("No repotting in the care log.") && page.contains("the spot&#39;s is not recorded."))
            // A reload reads the kept answer: nothing more is sent.
            let reloaded = try await client.execute(uri: location, method: .get, headers: session.headers) { $0.text }
            #expect(reloaded.contains("Grey mould") && reloaded.contains("From Pl@ntNet 2025-03-10 (diseases 1.2), answered"))
            #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 1)
            let detail = try await client.execute(uri: "/api/collection/\(fern.id)", method: .get, headers: session.headers) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(detail.careFacts.contains { $0.kind == .repotting })
        }
    }

    @Test func keepInThePlantsHistorySavesARecordWithItsPhotosOnceAndShowsItOnThePlantPage() async throws {
        let fixture = try await DiagnoseFixture.make()
        defer { fixture.cleanUp() }
        let (database, fern, stub, dependencies, photo) = (fixture.database, fixture.fern, fixture.stub, fixture.dependencies, fixture.photo)
        let sha = sha256Hex(photo)
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            // Without a plant, a diagnosis has nowhere to be kept: no form.
            var loose = Multipart()
            loose.file("photo", "leaf.jpg", photo)
            loose.field("organ", "leaf")
            let (looseHeaders, looseBody) = session.multipart(loose)
            let looseLocation = try await client.execute(uri: "/diagnose", method: .post, headers: looseHeaders, body: looseBody) {
                $0.headers[.location] ?? ""
            }
            let loosePage = try await client.execute(uri: looseLocation, method: .get, headers: session.headers) { $0.text }
            #expect(loosePage.contains("Grey mould") && !loosePage.contains("Keep in the plant’s history"))

            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("organ", "leaf")
            form.field("plant", "\(fern.id)")
            let (headers, body) = session.multipart(form)
            let location = try await client.execute(uri: "/diagnose", method: .post, headers: headers, body: body) {
                $0.headers[.location] ?? ""
            }
            let page = try await client.execute(uri: location, method: .get, headers: session.headers) { $0.text }
            #expect(page.contains("<h2 id=\"keep-title\">Keep in the plant’s history</h2>"))
            #expect(page.contains("action=\"/collection/\(fern.id)/health\""))
            #expect(page.contains("name=\"photos\" value=\"\(sha)\"") && page.contains("name=\"organs\" value=\"leaf\""))

            let fields = [("photos", sha), ("organs", "leaf"), ("lang", "en"), ("note", "brown edges after the cold week")]
            for _ in 0..<2 {
                // Sent twice (a second tap): kept once.
                let (keepHeaders, keepBody) = session.form(fields)
                try await client.execute(uri: "/collection/\(fern.id)/health", method: .post, headers: keepHeaders, body: keepBody) { response in
                    #expect(response.status == .seeOther, "\(response.text)")
                    #expect(response.headers[.location] == "/collection/\(fern.id)#health")
                }
            }
            let records = try database.healthRecords(plantId: fern.id)
            #expect(records.count == 1)
            let record = try #require(records.first)
            #expect(record.note == "brown edges after the cold week")
            #expect(record.diagnosis?.source == .plantNetAPI && record.diagnosis?.candidates.first?.eppoCode == "BOTRCI")
            #expect(record.photos.map(\.organ) == ["leaf"])
            let stored = try #require(try database.photo(sha256: record.photos[0].sha256))
            #expect(stored.originalSHA256 == sha)
            // One request in all: the plant's diagnosis of the same photo came from the cache, and keeping it asks nothing.
            #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == 1)

            let plantPage = try await client.execute(uri: "/collection/\(fern.id)", method: .get, headers: session.headers) { $0.text }
            #expect(plantPage.contains("<h3 id=\"health\">Health</h3>"))
            #expect(plantPage.contains("Diagnosis: Grey mould (BOTRCI) 62 %"))
            #expect(plantPage.contains("<p class=\"notes\">brown edges after the cold week</p>"))
            #expect(plantPage.contains("src=\"/collection/photos/\(stored.sha256)/thumbnail\""))
            try await client.execute(uri: "/collection/photos/\(stored.sha256)/thumbnail", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
            }
            let detail = try await client.execute(uri: "/api/collection/\(fern.id)", method: .get, headers: session.headers) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(detail.healthRecords.map(\.photoIDs) == [[stored.sha256]])
            #expect(detail.healthRecords.first?.candidates.map(\.eppoCode) == ["BOTRCI", "TETRUR", "ZZSTUB"])

            // Refused: photos that are not waiting, a note too long, no such plant, a broken form.
            let refusals: [(String, [(String, String)], HTTPResponse.Status)] = [
                ("/collection/\(fern.id)/health", [("photos", String(repeating: "ab", count: 32)), ("organs", "leaf")], .notFound),
                ("/collection/\(fern.id)/health", [("photos", sha), ("organs", "leaf"), ("note", String(repeating: "n", count: 2_001))], .unprocessableContent),
                ("/collection/999/health", [("photos", sha), ("organs", "leaf")], .notFound),
                ("/collection/\(fern.id)/health", [("photos", "not-a-hash"), ("organs", "leaf")], .badRequest),
                ("/collection/\(fern.id)/health", [("photos", sha), ("organs", "habit")], .badRequest),
            ]
            for (uri, fields, status) in refusals {
                let (refusedHeaders, refusedBody) = session.form(fields)
                try await client.execute(uri: uri, method: .post, headers: refusedHeaders, body: refusedBody) { response in
                    #expect(response.status == status, "\(uri) \(fields.map(\.0)): \(response.text)")
                }
            }
            #expect(try database.healthRecords(plantId: fern.id).count == 1)

            // Removed from the plant page: gone with the photo only it used; a second removal is not found.
            let remove = "/collection/\(fern.id)/health/\(record.id)/remove"
            #expect(plantPage.contains("action=\"\(remove)\""))
            for expected in [HTTPResponse.Status.seeOther, .notFound] {
                let (removeHeaders, removeBody) = session.form([])
                try await client.execute(uri: remove, method: .post, headers: removeHeaders, body: removeBody) { response in
                    #expect(response.status == expected, "\(response.text)")
                }
            }
            #expect(try database.healthRecords(plantId: fern.id).isEmpty)
            #expect(try database.photo(sha256: stored.sha256) == nil)
        }
    }

    @Test func whenPlantNetFailsThePhotosCanWaitInThePlantsHistoryAndTheQueueFillsTheAnswerIn() async throws {
        let fixture = try await DiagnoseFixture.make()
        defer { fixture.cleanUp() }
        let (database, fern, stub, dependencies, photo) = (fixture.database, fixture.fern, fixture.stub, fixture.dependencies, fixture.photo)
        let sha = sha256Hex(photo)
        stub.configure { $0.failures = Array(repeating: 503, count: 20) }
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("organ", "leaf")
            form.field("plant", "\(fern.id)")
            let (headers, body) = session.multipart(form)
            let page = try await client.execute(uri: "/diagnose", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .serviceUnavailable, "\(response.text)")
                return response.text
            }
            #expect(page.contains("Pl@ntNet cannot diagnose Nephrolepis exaltata now"))
            #expect(page.contains("name=\"later\" value=\"1\"") && page.contains("name=\"photos\" value=\"\(sha)\""))
            #expect(page.contains("<button type=\"submit\">Keep and diagnose later</button>"))
            // Without a plant there is nowhere to wait: the failure is the answer.
            var loose = Multipart()
            loose.file("photo", "leaf.jpg", photo)
            let (looseHeaders, looseBody) = session.multipart(loose)
            try await client.execute(uri: "/diagnose", method: .post, headers: looseHeaders, body: looseBody) { response in
                #expect(response.status != .seeOther && !response.text.contains("Keep and diagnose later"))
            }

            let fields = [("later", "1"), ("photos", sha), ("organs", "leaf"), ("lang", "en"), ("note", "yellow rims")]
            for _ in 0..<2 {
                // Sent twice: one record waits.
                let (keepHeaders, keepBody) = session.form(fields)
                try await client.execute(uri: "/collection/\(fern.id)/health", method: .post, headers: keepHeaders, body: keepBody) { response in
                    #expect(response.status == .seeOther, "\(response.text)")
                }
            }
            let waiting = try database.healthRecords(plantId: fern.id)
            #expect(waiting.count == 1)
            #expect(waiting.first?.isWaiting == true && waiting.first?.note == "yellow rims")
            try await client.execute(uri: "/collection/\(fern.id)", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Diagnosis: waiting for Pl@ntNet"), "\(response.text)")
            }
            try await client.execute(uri: "/api/collection/\(fern.id)", method: .get, headers: session.headers) { response in
                let json = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
                let record = (json?["healthRecords"] as? [[String: Any]])?.first
                #expect(record?["status"] as? String == "waiting")
                #expect(record?["model"] == nil)
            }

            // Pl@ntNet answers again: the background queue sends the photos and the record takes its answer.
            stub.configure { $0.failures = [] }
            let sentBefore = stub.requests.filter { $0.path == "/v2/diseases/identify" }.count
            // The service drains each household in its scope.
            let drained = try await HouseholdScope.$current.withValue(HouseholdScope(household: 1)) { () async throws in
                try await dependencies.recheck?.drain()
            }
            let run = try #require(drained)
            #expect(run.diagnosed == 1 && run.diagnosesWaiting == 0, "\(run)")
            #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.count == sentBefore + 1)
            let answered = try #require(try database.healthRecords(plantId: fern.id).first)
            #expect(answered.diagnosis?.candidates.first?.eppoCode == "BOTRCI")
            try await client.execute(uri: "/collection/\(fern.id)", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Diagnosis: Grey mould (BOTRCI) 62 %") && !response.text.contains("waiting for Pl@ntNet"))
            }
        }
    }

    @Test func organsTheServiceRefusesAndBadAddressesAreRefusedBeforeAnythingIsSent() async throws {
        let fixture = try await DiagnoseFixture.make()
        defer { fixture.cleanUp() }
        let (stub, dependencies, photo) = (fixture.stub, fixture.dependencies, fixture.photo)
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("organ", "habit")
            let (headers, body) = session.multipart(form)
            try await client.execute(uri: "/diagnose", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("The disease service takes photos of a leaf, flower, fruit or bark"))
            }
            var unknown = Multipart()
            unknown.file("photo", "leaf.jpg", photo)
            unknown.field("plant", "99")
            let (unknownHeaders, unknownBody) = session.multipart(unknown)
            try await client.execute(uri: "/diagnose", method: .post, headers: unknownHeaders, body: unknownBody) { response in
                #expect(response.status == .notFound)
            }
            for address in ["/diagnose/results?photos=abc&organs=leaf", "/diagnose/results?photos=\(String(repeating: "a", count: 64))&organs=habit",
                            "/diagnose/results"] {
                try await client.execute(uri: address, method: .get, headers: session.headers) { response in
                    #expect(response.status == .badRequest, "\(address)")
                }
            }
            // A well-formed address of photos never sent: not kept, so not found (and not sent).
            try await client.execute(
                uri: "/diagnose/results?photos=\(String(repeating: "b", count: 64))&organs=leaf&lang=en", method: .get, headers: session.headers
            ) { response in
                #expect(response.status == .notFound)
            }
            #expect(stub.requests.filter { $0.path == "/v2/diseases/identify" }.isEmpty)
        }
    }

    @Test func withoutAKeyThePageSaysWhatIsMissing() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/diagnose", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Diagnosis is not available yet") && response.text.contains("Pl@ntNet API key"))
            }
        }
    }
}
