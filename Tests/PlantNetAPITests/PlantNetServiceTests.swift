import Foundation
import PlantGuideTestSupport
import PlantNetAPI
import Synchronization
import Testing

@Suite struct PlantNetServiceTests {
    private func service(
        _ stub: PlantNetStub, folder: URL, time: ManualTime = ManualTime(Date()), baseURL: URL? = nil
    ) -> PlantNetService {
        PlantNetService(
            client: PlantNetClient(
                configuration: PlantNetConfiguration(baseURL: baseURL ?? stub.baseURL, apiKey: "stub-key"),
                sleep: { _ in }, now: time.now
            ),
            quota: QuotaTracker(file: folder.appendingPathComponent("quota.json"), now: time.now),
            cache: IdentificationCache(file: folder.appendingPathComponent("cache.json"), now: time.now),
            reachability: Reachability(backOff: 60, now: time.now)
        )
    }

    @Test func secondIdenticalCallIsACacheHitWithoutARequest() async throws {
        try await withStub { stub in
            let folder = try temporaryFolder()
            let first = try await service(stub, folder: folder).identify([image(1, organ: .leaf)])
            #expect(first.identification.source == .plantNetAPI)
            #expect(first.remainingRequests == 499)
            // A new service on the same folder: as a second run of the command line would be.
            let second = try await service(stub, folder: folder).identify([image(1, organ: .leaf)])
            #expect(second.identification.source == .cache)
            #expect(second.identification.predictions == first.identification.predictions)
            #expect(stub.requestCount == 1)
        }
    }

    /// The call was made and counted: a cache that cannot be written must not lose the answer.
    @Test func aCacheThatCannotBeWrittenStillAnswers() async throws {
        try await withStub { stub in
            let folder = try temporaryFolder()
            let blocker = folder.appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: blocker)
            let warnings = WarningLog()
            let api = PlantNetService(
                client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "stub-key"), sleep: { _ in }),
                quota: QuotaTracker(file: folder.appendingPathComponent("quota.json")),
                cache: IdentificationCache(file: blocker.appendingPathComponent("cache.json")),
                reachability: Reachability(), warn: warnings.add
            )
            let answer = try await api.identify([image(3)])
            #expect(answer.identification.source == .plantNetAPI)
            #expect(answer.identification.best?.scientificName == "Monstera deliciosa")
            #expect(stub.requestCount == 1)
            #expect(warnings.lines.contains { $0.contains("could not be cached") })
        }
    }

    @Test func quotaIsRecordedAndBlocksAfterA429() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 2
        try await withStub(behaviour) { stub in
            let folder = try temporaryFolder()
            let api = service(stub, folder: folder)
            _ = try await api.identify([image(1)])
            #expect(await api.quota.status().remaining == 1)
            _ = try await api.identify([image(2)])
            #expect(await api.quota.status().level == .exhausted)
            let error = await #expect(throws: PlantNetError.self) { try await api.identify([image(3)]) }
            guard case .quotaExhausted = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(stub.requestCount == 2)  // blocked before sending
        }
    }

    @Test func a429FromTheServiceBlocksLaterCalls() async throws {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 0
        try await withStub(behaviour) { stub in
            let api = service(stub, folder: try temporaryFolder())
            await #expect(throws: PlantNetError.self) { try await api.identify([image(1)]) }
            await #expect(throws: PlantNetError.self) { try await api.identify([image(2)]) }
            #expect(stub.requestCount == 1)
            #expect(await api.quota.status().isBlocked)
        }
    }

    @Test func failedConnectionBacksOffThenTriesAgain() async throws {
        let offline = try RefusingPort()
        defer { offline.release() }
        try await withStub { stub in
            let time = ManualTime(Date())
            let api = service(stub, folder: try temporaryFolder(), time: time, baseURL: offline.url)
            await #expect(throws: PlantNetError.self) { try await api.identify([image(1)]) }
            #expect(!api.reachability.isReachable)
            time.advance(by: 61)
            #expect(api.reachability.isReachable)
        }
    }
}

/// Collects warnings for tests.
final class WarningLog: Sendable {
    private let store = Mutex<[String]>([])
    var lines: [String] { store.withLock { $0 } }
    var add: @Sendable (String) -> Void { { line in self.store.withLock { $0.append(line) } } }
}
