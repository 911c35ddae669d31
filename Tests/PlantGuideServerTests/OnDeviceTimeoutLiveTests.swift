import Foundation
import PlantClassifier
import PlantGuideCore
import PlantGuideTestSupport
import Testing
@testable import PlantGuideServer

/// The server's on-device path under `PLANTGUIDE_ON_DEVICE_TIMEOUT`: the live wiring with the tiny fixture model, a
/// photo large enough that decoding it alone overruns the limit, and the Pl@ntNet stub.
@Suite struct OnDeviceTimeoutLiveTests {
    /// A limit no real identification meets: decoding a 2000×1500 photo alone takes far longer.
    let tinyLimit = ["PLANTGUIDE_ON_DEVICE_TIMEOUT": "0.001"]
    let largePhoto = PNGFixture.gradient(width: 2000, height: 1500, seed: 3)

    @Test func anOverrunIsAnsweredByPlantNet() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let environment = tinyLimit.merging(
            ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString]
        ) { _, new in new }
        let identification = try await #require(ServerDependencies.live(dataDirectory: home, environment: environment).identification)
        #expect(identification.strategies.contains(.onDevice))

        let outcome = try await identification.identify(IdentifyRequest(photos: [largePhoto], strategy: .auto))
        #expect(outcome.identification.source == .plantNetAPI)
        #expect(outcome.identification.best?.scientificName == "Monstera deliciosa")
        #expect(outcome.notes.contains { $0.contains("took longer than 0.001 s") }, "\(outcome.notes)")
        #expect(!outcome.offline)
        #expect(stub.requests.filter { $0.path.contains("/identify/") }.count == 1, "\(stub.requests.map(\.path))")
    }

    @Test func anOverrunOnTheDeviceAloneIsAClearFailure() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let identification = try await #require(ServerDependencies.live(dataDirectory: home, environment: tinyLimit).identification)
        let error = await #expect(throws: ServerError.self) {
            try await identification.identify(IdentifyRequest(photos: [largePhoto], strategy: .onDevice))
        }
        #expect("\(try #require(error))".contains("took longer than 0.001 s"))

        // Without the variable the limit is 10 s, which the same photo keeps.
        let unlimited = try await #require(ServerDependencies.live(dataDirectory: home, environment: [:]).identification)
        let answer = try await unlimited.identify(IdentifyRequest(photos: [largePhoto], strategy: .onDevice))
        #expect(answer.identification.source == .onDevice)
        #expect(!answer.identification.predictions.isEmpty)
    }
}
