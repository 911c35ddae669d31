import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PlantClassifier
import PlantGuideCore
import PlantGuideTestSupport
import PlantIdentification
import PlantStore
import Testing
@testable import PlantGuideServer

/// The re-check queue in the web app, with the live wiring: the tiny fixture model, a real SQLite collection, and the
/// Pl@ntNet stub on a port that is down, then up.
@Suite struct RecheckRouteTests {
    /// Runs a capability as a request of household 1 would (the web app's store acts for no household outside one).
    static func asHome<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await HouseholdScope.$current.withValue(.home) { try await body() }
    }

    private let photo: Data

    init() throws {
        photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
    }

    private func environment(port: Int) -> [String: String] {
        ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": "http://127.0.0.1:\(port)", "PLANTGUIDE_RECHECK_INTERVAL": "0.5"]
    }

    @Test func anOfflineAnswerSavedAsMyPlantIsReCheckedFromSettingsAndTheSuggestionIsAccepted() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let offline = try RefusingPort()
        defer { offline.release() }
        let port = offline.port
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: environment(port: port))
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("organ", "leaf")
            let (location, page) = try await session.identifyPage(client, form)
            #expect(page.contains("<strong>Offline:</strong>"))
            #expect(page.contains("Queued for a Pl@ntNet re-check</strong> (the device answered because Pl@ntNet could not be reached)"))
            let uploadID = String(location.split(separator: "/").last ?? "")

            // "This is my plant": the queued answer moves to the plant, so the history holds it once, waiting.
            let (saveHeaders, saveBody) = session.form([("uploadId", uploadID), ("scientificName", "Ficus lyrata"), ("nickname", "Fig")])
            let plantPath = try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                #expect(response.status == .seeOther)
                return response.headers[.location] ?? ""
            }
            let plantID = String(plantPath.split(separator: "/").last ?? "")
            let waiting = try await detail(client, plantID)
            #expect(waiting.identifications.count == 1)
            #expect(waiting.identifications.first?.recheckNote == "waiting for a Pl@ntNet re-check")
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("<tr><th scope=\"row\">Waiting</th><td>1</td></tr>"))
                #expect(response.text.contains("value=\"send\">Send now</button>"))
                #expect(response.text.contains("Re-score saved plants with resnet18-plantnet300k"))
            }

            // Offline still: sending does nothing and loses nothing.
            let (sendHeaders, sendBody) = session.form([("action", "send")])
            try await client.execute(uri: "/settings/recheck", method: .post, headers: sendHeaders, body: sendBody) { response in
                #expect(response.headers[.location] == "/settings?recheck=sent-0-0-1#recheck")
            }

            // Pl@ntNet is back: "Send now" re-checks it, and the plant is flagged, not renamed.
            let stub = try await PlantNetStub.start(takingOver: offline)
            defer { Task { await stub.stop() } }
            try await client.execute(uri: "/settings/recheck", method: .post, headers: sendHeaders, body: sendBody) { response in
                #expect(response.headers[.location] == "/settings?recheck=sent-1-1-0#recheck")
            }
            #expect(stub.requests.filter { $0.path.hasPrefix("/v2/identify") }.count == 1)
            try await client.execute(uri: "/settings?recheck=sent-1-1-0", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Sent 1 to Pl@ntNet: 1 plant flagged, 0 still waiting."))
                #expect(response.text.contains("<tr><th scope=\"row\">Suggestions waiting for you</th><td>1</td></tr>"))
            }
            let flagged = try await client.execute(uri: plantPath, method: .get, headers: session.headers) { response in response.text }
            #expect(flagged.contains("<strong>Pl@ntNet thinks this is Monstera deliciosa (91 %).</strong>"))
            #expect(flagged.contains("Your plant stays <span class=\"sci\">Ficus lyrata</span> unless you change it."))
            let checked = try await detail(client, plantID)
            #expect(checked.entry.scientificName == "Ficus lyrata")
            #expect(checked.identifications.map(\.recheckNote).contains("Pl@ntNet re-check"))
            #expect(!checked.identifications.map(\.recheckNote).contains("waiting for a Pl@ntNet re-check"))

            // Accepting takes the species and its care profile; the notice goes.
            let suggestionID = try #require(flagged.range(of: "/suggestions/").map { range in
                String(flagged[range.upperBound...].prefix { $0.isNumber })
            })
            let (acceptHeaders, acceptBody) = session.form([])
            try await client.execute(
                uri: "\(plantPath)/suggestions/\(suggestionID)/accept", method: .post, headers: acceptHeaders, body: acceptBody
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == plantPath)
            }
            let accepted = try await detail(client, plantID)
            #expect(accepted.entry.scientificName == "Monstera deliciosa")
            #expect(accepted.entry.nickname == "Fig")
            try await client.execute(uri: plantPath, method: .get, headers: session.headers) { response in
                #expect(!response.text.contains("thinks this is"))
            }
            // Settled once: a second answer is refused, and a suggestion of another plant is not found.
            try await client.execute(
                uri: "\(plantPath)/suggestions/\(suggestionID)/dismiss", method: .post, headers: acceptHeaders, body: acceptBody
            ) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(
                uri: "/collection/999/suggestions/\(suggestionID)/accept", method: .post, headers: acceptHeaders, body: acceptBody
            ) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// The background service in the server's service group sends the queue by itself once Pl@ntNet is back.
    @Test func theBackgroundServiceSendsTheQueueWhenPlantNetComesBack() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let offline = try RefusingPort()
        defer { offline.release() }
        let port = offline.port
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: environment(port: port))
        var logger = Logger(label: "plantguide.test")
        logger.logLevel = .critical
        let app = try buildApplication(configuration: ServerConfiguration(), dependencies: dependencies, logger: logger)
        try await app.test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            let (headers, body) = session.multipart(form)
            let answer = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(answer.offline)
            #expect(answer.recheck?.reason == .offline)
            let recheck = try #require(dependencies.recheck)
            #expect(try await Self.asHome { try await recheck.summary() }.queued == 1)

            let stub = try await PlantNetStub.start(takingOver: offline)
            defer { Task { await stub.stop() } }
            // The client backs off for a minute after a failure; the service checks the connection itself.
            let deadline = ContinuousClock.now + .seconds(20)
            while try await Self.asHome({ try await recheck.summary() }).done == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let summary = try await Self.asHome { try await recheck.summary() }
            #expect(summary.done == 1 && summary.queued == 0)
            #expect(stub.requests.map(\.path).contains("/v2/projects"))
            #expect(stub.requests.filter { $0.path.hasPrefix("/v2/identify") }.count == 1)
        }
    }

    /// After Settings switches the on-device model, "Re-score" classifies each saved plant's photo again and flags the
    /// plants the new model disagrees about, showing both models.
    @Test func settingsReScoresSavedPlantsWithTheNewModelAndTheirPagesShowBothModels() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("strategy", "on-device")
            let (location, _) = try await session.identifyPage(client, form)
            let (saveHeaders, saveBody) = session.form([
                ("uploadId", String(location.split(separator: "/").last ?? "")), ("scientificName", "Ficus lyrata"),
            ])
            let plantPath = try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                response.headers[.location] ?? ""
            }
            // Nothing to re-score with the model that made the answer.
            let (rescoreHeaders, rescoreBody) = session.form([("action", "rescore")])
            try await client.execute(uri: "/settings/recheck", method: .post, headers: rescoreHeaders, body: rescoreBody) { response in
                #expect(response.headers[.location] == "/settings?recheck=rescored-0-0-0#recheck")
            }

            let checkpoint = LiveDependenciesTests.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet34.pth")
            let store = ModelStore(dataDirectory: DataDirectory(url: home))
            _ = try store.install(checkpoint: checkpoint, options: .init(architecture: .resnet34, labels: "index"))
            let (choose, chooseBody) = session.form([
                ("defaultStrategy", "auto"), ("threshold", "70"), ("model", "resnet34-index.pgmodel"),
            ])
            try await client.execute(uri: "/settings/identification", method: .post, headers: choose, body: chooseBody) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Re-score saved plants with resnet34-index"))
            }
            try await client.execute(uri: "/settings/recheck", method: .post, headers: rescoreHeaders, body: rescoreBody) { response in
                #expect(response.headers[.location] == "/settings?recheck=rescored-1-1-0#recheck")
            }
            let page = try await client.execute(uri: plantPath, method: .get, headers: session.headers) { response in response.text }
            #expect(page.contains("<strong>The new model (resnet34-index) thinks this is class "))
            #expect(page.contains("The previous model (resnet18-plantnet300k) said "))
            #expect(page.contains("re-scored with a new model"))
            // Done once per model.
            try await client.execute(uri: "/settings/recheck", method: .post, headers: rescoreHeaders, body: rescoreBody) { response in
                #expect(response.headers[.location] == "/settings?recheck=rescored-0-0-0#recheck")
            }
        }
    }

    /// A new default model chosen in Settings indexes the collection's photos again in the background rounds, so your
    /// plants are recognised with it without a command; photos already indexed by it are left alone.
    @Test func theBackgroundRoundsIndexPhotosWithTheModelChosenInSettings() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let recheck = try #require(dependencies.recheck)
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            let (saveHeaders, saveBody) = session.form([("scientificName", "Ficus lyrata"), ("nickname", "Fig")])
            let plantPath = try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                response.headers[.location] ?? ""
            }
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            let (photoHeaders, photoBody) = session.multipart(form)
            try await client.execute(uri: "\(plantPath)/photos", method: .post, headers: photoHeaders, body: photoBody) { response in
                #expect(response.status == .seeOther)
            }
            // Embedded as it was stored, with the model loaded at start: nothing left to index.
            #expect(try await Self.asHome { try await recheck.reindex() } == 0)

            let checkpoint = LiveDependenciesTests.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet34.pth")
            _ = try ModelStore(dataDirectory: DataDirectory(url: home)).install(
                checkpoint: checkpoint, options: .init(architecture: .resnet34, labels: "index")
            )
            let (choose, chooseBody) = session.form([("defaultStrategy", "auto"), ("threshold", "70"), ("model", "resnet34-index.pgmodel")])
            try await client.execute(uri: "/settings/identification", method: .post, headers: choose, body: chooseBody) { response in
                #expect(response.status == .seeOther)
            }
            #expect(try await Self.asHome { try await recheck.reindex() } == 1)
            #expect(try await Self.asHome { try await recheck.reindex() } == 0)
        }
    }

    private func detail(_ client: some TestClientProtocol, _ plantID: String) async throws -> CollectionEntryDetail {
        try await client.execute(uri: "/api/collection/\(plantID)", method: .get) { response in
            try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
        }
    }
}
