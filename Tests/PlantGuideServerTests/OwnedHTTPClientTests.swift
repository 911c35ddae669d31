import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PlantGuideTestSupport
import PlantIdentification
import Testing
@testable import PlantGuideServer

/// The HTTP client the server owns for its outgoing calls: built on the application's event loops, carrying the
/// Pl@ntNet calls, and shut down when the server stops.
@Suite struct OwnedHTTPClientTests {
    @Test func theServersClientCarriesPlantNetCallsAndIsShutDownWhenTheServerStops() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        let httpClient = ServerDependencies.makeHTTPClient()
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString],
            httpClient: httpClient
        )
        #expect(dependencies.ownedHTTPClient === httpClient)
        var logger = Logger(label: "plantguide.test")
        logger.logLevel = .critical
        let app = try buildApplication(configuration: ServerConfiguration(), dependencies: dependencies, logger: logger)
        #expect(app.eventLoopGroup === httpClient.eventLoopGroup)

        try await app.test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("strategy", "plantnet")
            let (headers, body) = session.multipart(form)
            let answer = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(answer.source == .plantNetAPI)
            #expect(answer.predictions.first?.scientificName == "Monstera deliciosa")
        }
        #expect(stub.requests.contains { $0.path.hasPrefix("/v2/identify") })
        // Stopping the server shut its client down: a second shutdown is refused.
        await #expect(throws: HTTPClientError.alreadyShutdown) { try await httpClient.shutdown() }
    }
}
