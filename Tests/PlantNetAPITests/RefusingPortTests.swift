import Foundation
import PlantGuideTestSupport
import PlantNetAPI
import Testing

/// The "Pl@ntNet is offline" tests rely on a port that refuses connections, that no other server is given meanwhile,
/// and that a stub takes over without a moment in which the port is free.
@Suite struct RefusingPortTests {
    @Test func aHeldPortRefusesConnectionsAndServersUntilAStubTakesItOver() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        #expect(offline.port > 0)
        let api = PlantNetClient(configuration: PlantNetConfiguration(baseURL: offline.url, apiKey: "stub-key"), sleep: { _ in })
        let error = await #expect(throws: PlantNetError.self) { try await api.identify([image(1)]) }
        guard case .offline = error else { Issue.record("got \(String(describing: error))"); return }
        // A server asking for the held port is refused it (the stub binds with SO_REUSEADDR, as servers do).
        await #expect(throws: (any Error).self) { try await PlantNetStub.start(port: offline.port) }
        let stub = try await PlantNetStub.start(takingOver: offline)
        defer { Task { await stub.stop() } }
        #expect(stub.port == offline.port)
        #expect(offline.handOver() == nil)
        _ = try await api.identify([image(1)])
        #expect(stub.requestCount == 1)
        // Handed over, there is nothing left to release or hand over again.
        offline.release()
        await #expect(throws: (any Error).self) { try await PlantNetStub.start(takingOver: offline) }
    }
}
