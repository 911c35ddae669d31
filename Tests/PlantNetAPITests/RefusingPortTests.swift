import Foundation
import PlantGuideTestSupport
import PlantNetAPI
import Testing

/// The "Pl@ntNet is offline" tests rely on a port that refuses connections and that no other server is given meanwhile.
@Suite struct RefusingPortTests {
    @Test func aHeldPortRefusesConnectionsAndServersUntilReleased() async throws {
        let offline = try RefusingPort()
        #expect(offline.port > 0)
        let api = PlantNetClient(configuration: PlantNetConfiguration(baseURL: offline.url, apiKey: "stub-key"), sleep: { _ in })
        let error = await #expect(throws: PlantNetError.self) { try await api.identify([image(1)]) }
        guard case .offline = error else { Issue.record("got \(String(describing: error))"); return }
        // A server asking for the held port is refused it (the stub binds with SO_REUSEADDR, as servers do).
        await #expect(throws: (any Error).self) { try await PlantNetStub.start(port: offline.port) }
        offline.release()
        offline.release()
        let stub = try await PlantNetStub.start(port: offline.port)
        defer { Task { await stub.stop() } }
        #expect(stub.port == offline.port)
        _ = try await api.identify([image(1)])
        #expect(stub.requestCount == 1)
    }
}
