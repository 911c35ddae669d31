import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantGuideServer
import PlantGuideTestSupport
import PlantNetAPI
import PlantStore
import PlantStoreSQLite
import Testing

/// The Pl@ntNet quota and cache kept in the collection database, through the real Pl@ntNet client and the stub.
@Suite struct StorePlantNetStateTests {
    private func folder() throws -> DataDirectory {
        let directory = DataDirectory(
            url: FileManager.default.temporaryDirectory.appendingPathComponent("plantnet-state-\(UUID().uuidString)")
        )
        try directory.create()
        return directory
    }

    private func image(_ seed: UInt8, perceptualHash: UInt64? = nil) -> PlantNetImage {
        var jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0])
        jpeg.append(contentsOf: (0..<2_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
        jpeg.append(contentsOf: [0xFF, 0xD9])
        return PlantNetImage(
            jpeg: jpeg, organ: .leaf, sha256: String(repeating: String(format: "%02x", seed), count: 32),
            perceptualHash: perceptualHash
        )
    }

    private func service(_ stub: PlantNetStub, state: PlantNetState) -> PlantNetService {
        PlantNetService(
            client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "stub-key"), sleep: { _ in }),
            quota: state.quota, cache: state.cache, reachability: Reachability()
        )
    }

    @Test func twoProcessesShareOneQuotaAndOneCache() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeAll(directory) }
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 3
        try await withStub(behaviour) { stub in
            // Two stores on one file: the command line and the web app.
            let web = PlantNetState.live(directory: directory, store: try CollectionDatabase.open(in: directory), environment: [:], warn: { _ in })
            let cli = PlantNetState.live(directory: directory, store: try CollectionDatabase.open(in: directory), environment: [:], warn: { _ in })
            #expect(await web.quota.status().remaining == nil)
            let first = try await service(stub, state: web).identify([image(1)])
            #expect(first.identification.source == .plantNetAPI)
            #expect(await cli.quota.status().remaining == 2)
            // The other process gets the answer from the shared cache: no request, no quota.
            let again = try await service(stub, state: cli).identify([image(1)])
            #expect(again.identification.source == .cache)
            #expect(again.identification.predictions == first.identification.predictions)
            // A re-saved copy (same perceptual hash within 4 bits, other bytes) is a hit too.
            _ = try await service(stub, state: cli).identify([image(2, perceptualHash: 0xF0F0)])
            let nearCopy = try await service(stub, state: web).identify([image(3, perceptualHash: 0xF0F1)])
            #expect(nearCopy.identification.source == .cache)
            #expect(stub.requestCount == 2)
            let statistics = await web.cache.statistics()
            #expect(statistics.entries == 2)
            #expect(statistics.hits == 2)
            #expect(statistics.misses == 2)
            // Pl@ntNet's count is the authority: one left, then its 429 blocks both processes without another request.
            _ = try await service(stub, state: web).identify([image(4)])
            #expect(await cli.quota.status().remaining == 0)
            #expect(await cli.quota.status().isBlocked)
            await #expect(throws: PlantNetError.self) { try await service(stub, state: cli).identify([image(5)]) }
            #expect(stub.requestCount == 3)
            #expect(try await web.cache.clear() == 3)
            #expect(await cli.cache.statistics().entries == 0)
        }
    }

    @Test func concurrentIdentificationsNeverSpendMoreThanIsLeft() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeAll(directory) }
        try await withStub { stub in
            let store = try CollectionDatabase.open(in: directory)
            // Pl@ntNet said 5 are left today; 12 different photos are sent at once.
            _ = try store.reportPlantNetRemaining(5, day: StoreQuotaLedger.day(of: Date()), dailyLimit: 500, now: Date())
            let state = PlantNetState.live(directory: directory, store: store, environment: [:], warn: { _ in })
            let api = service(stub, state: state)
            let answered = await withTaskGroup(of: Bool.self) { group in
                for seed in 10..<22 {
                    group.addTask { (try? await api.identify([image(UInt8(seed))])) != nil }
                }
                var count = 0
                for await ok in group where ok { count += 1 }
                return count
            }
            #expect(answered == 5)
            #expect(stub.requestCount == 5)
        }
    }

    @Test func aRequestWithoutAnAnswerGivesItsReservationBack() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeAll(directory) }
        var behaviour = PlantNetStubBehaviour()
        behaviour.malformedAnswer = true
        try await withStub(behaviour) { stub in
            let store = try CollectionDatabase.open(in: directory)
            let state = PlantNetState.live(directory: directory, store: store, environment: [:], warn: { _ in })
            // A wrong key (401) and a malformed answer: neither is an identification to count.
            let wrongKey = PlantNetService(
                client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: "wrong-key"), sleep: { _ in }),
                quota: state.quota, cache: state.cache, reachability: Reachability()
            )
            await #expect(throws: PlantNetError.self) { try await wrongKey.identify([image(30)]) }
            await #expect(throws: PlantNetError.self) { try await service(stub, state: state).identify([image(31)]) }
            #expect(stub.requestCount == 2)
            let row = try store.plantNetQuota(day: StoreQuotaLedger.day(of: Date()), dailyLimit: 500, now: Date())
            #expect(row.spent == 0)
            #expect(row.available == 500)
        }
    }

    @Test func theOldFilesMoveIntoTheDatabaseOnce() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeAll(directory) }
        let quotaFile = directory.appending("plantnet-quota.json")
        let cacheFile = directory.appending("plantnet-cache.json")
        try await withStub { stub in
            // An older PlantGuide's files: one cached answer, and a count Pl@ntNet reported.
            let files = PlantNetState.live(directory: directory, store: nil, environment: [:], warn: { _ in })
            _ = try await service(stub, state: files).identify([image(7)])
            #expect(FileManager.default.fileExists(atPath: quotaFile.path))
            #expect(FileManager.default.fileExists(atPath: cacheFile.path))
            let state = PlantNetState.live(directory: directory, store: try CollectionDatabase.open(in: directory), environment: [:], warn: { _ in })
            #expect(!FileManager.default.fileExists(atPath: quotaFile.path))
            #expect(FileManager.default.fileExists(atPath: quotaFile.appendingPathExtension("imported").path))
            #expect(FileManager.default.fileExists(atPath: cacheFile.appendingPathExtension("imported").path))
            #expect(await state.quota.status().remaining == 499)
            let cached = try await service(stub, state: state).identify([image(7)])
            #expect(cached.identification.source == .cache)
            #expect(stub.requestCount == 1)
        }
    }
}

extension FileManager {
    fileprivate func removeAll(_ directory: DataDirectory) throws { try removeItem(at: directory.url) }
}
