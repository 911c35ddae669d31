import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PlantCatalog
import PlantGuideCore
import PlantNetStub
import PlantIdentification
import PlantNetAPI

/// Identification cache lookups, what running both identifiers in parallel costs over the slower one
/// alone, against the loopback Pl@ntNet stub with a fixed latency, and the process's CPU while a slow answer is awaited.
struct PlantNetBenchmark: BenchmarkSuite {
    let name = "plantnet"

    /// Latency of the stub (the slower branch) and of the fake on-device classifier.
    private let apiLatency = Duration.milliseconds(150)
    private let onDeviceLatency = Duration.milliseconds(60)
    private let rounds = 40
    /// How long the stub holds the answer in the CPU-while-waiting row.
    private let slowAnswer = Duration.seconds(8)

    func run() async throws -> [BenchmarkRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try cacheRows(folder: folder) + (try await parallelRows(folder: folder)) + (try await waitingRows())
    }

    // MARK: - CPU while waiting

    /// The whole process's CPU (user + system, `getrusage`) during one identification the stub answers after
    /// ``slowAnswer``, through ``PlantNetClient`` (async-http-client), and the same request through
    /// FoundationNetworking's URLSession, which busy-waits on Linux.
    private func waitingRows() async throws -> [BenchmarkRow] {
        var behaviour = PlantNetStubBehaviour()
        behaviour.quotaLimit = 1_000_000
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        let configuration = PlantNetConfiguration(baseURL: stub.baseURL, apiKey: behaviour.apiKey, timeout: .seconds(60))
        let client = PlantNetClient(configuration: configuration)
        let photo = PlantNetImage(jpeg: Data(repeating: 0xAB, count: 200_000), organ: .leaf, sha256: "bench")
        // Warm up both clients (connection pool, URLSession's threads) without the delay.
        _ = try await client.identify([photo])
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let request = Self.urlSessionRequest(stub: stub, key: behaviour.apiKey, photo: photo.jpeg)
        let (_, warm) = try await session.data(for: request)
        guard (warm as? HTTPURLResponse)?.statusCode == 200 else { throw WarmUpFailed() }

        let latency = slowAnswer
        stub.configure { $0.latency = latency }
        let ours = try await Self.processCPU { _ = try await client.identify([photo]) }
        let theirs = try await Self.processCPU { _ = try await session.data(for: request) }
        return [
            BenchmarkRow(suite: name, name: "Pl@ntNet call waiting \(slowAnswer.components.seconds) s: process CPU",
                         value: ours, unit: "s", below: 0.05, peer: ("URLSession", theirs)),
        ]
    }

    /// User + system CPU seconds of the whole process while `work` runs.
    private static func processCPU(_ work: () async throws -> Void) async throws -> Double {
        let before = Measure.processCPUSeconds()
        try await work()
        return Measure.processCPUSeconds() - before
    }

    /// The identification request as a direct URLSession call: the peer the product no longer uses.
    private static func urlSessionRequest(stub: PlantNetStub, key: String, photo: Data) -> URLRequest {
        let boundary = "bench-\(UUID().uuidString)"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"organs\"\r\n\r\nleaf\r\n".utf8)
        body.append(Data(("--\(boundary)\r\nContent-Disposition: form-data; name=\"images\"; filename=\"photo1.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n\r\n").utf8))
        body.append(photo)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: stub.baseURL.appendingPathComponent("v2/identify/all")
            .appending(queryItems: [URLQueryItem(name: "api-key", value: key)]), timeoutInterval: 60)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return request
    }

    // MARK: - Cache

    private func cacheRows(folder: URL) throws -> [BenchmarkRow] {
        let file = folder.appendingPathComponent("cache.json")
        let filling = IdentificationCache(file: file)
        var keys: [CacheKey] = []
        for index in 0..<IdentificationCache.defaultCapacity {
            let key = Self.key(index)
            keys.append(key)
            try filling.store(Self.answer(index), for: key)
        }
        // A fresh instance, as a new process would have: the first lookup reads the file.
        let cache = IdentificationCache(file: file)
        let firstLookup = Measure.seconds { _ = cache.lookup(keys[0]) }
        var hits: [Double] = []
        var misses: [Double] = []
        for round in 0..<20 {
            for (index, key) in keys.enumerated() {
                hits.append(Measure.seconds { _ = cache.lookup(key) })
                // A photo seen for the first time: no exact match, so every entry's perceptual hash is compared.
                let unseen = Self.key(10_000 + round * 1_000 + index)
                misses.append(Measure.seconds { _ = cache.lookup(unseen) })
            }
        }
        let flush = try Measure.seconds { try cache.flush() }
        let ms = 1000.0
        return [
            BenchmarkRow(suite: name, name: "cache: first lookup (reads 100 entries)", value: firstLookup * ms, unit: "ms"),
            BenchmarkRow(suite: name, name: "cache: hit p50", value: Measure.percentile(hits, 0.5) * ms, unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "cache: hit p99", value: Measure.percentile(hits, 0.99) * ms, unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "cache: miss p50 (perceptual scan)", value: Measure.percentile(misses, 0.5) * ms,
                         unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "cache: miss p99 (perceptual scan)", value: Measure.percentile(misses, 0.99) * ms,
                         unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "cache: save 100 entries", value: flush * ms, unit: "ms"),
        ]
    }

    private static func key(_ index: Int) -> CacheKey {
        var hash = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
        hash ^= hash >> 29
        let image = PlantNetImage(
            jpeg: Data(), organ: .leaf, sha256: String(format: "%064x", index), perceptualHash: hash
        )
        return CacheKey(images: [image], options: PlantNetOptions())
    }

    private static func answer(_ index: Int) -> PlantNetAnswer {
        let predictions = (1...10).map { rank in
            SpeciesPrediction(rank: rank, scientificName: "Genus species\(index)x\(rank)", commonNames: ["Name \(rank)"],
                              confidence: 1 / Double(rank + 1), gbifId: String(100_000 + rank), family: "Araceae")
        }
        return PlantNetAnswer(
            identification: Identification(source: .plantNetAPI, model: "Pl@ntNet", predictions: predictions, uncertain: false),
            notAPlant: false, remainingRequests: 400, secondsUntilReset: 3600
        )
    }

    // MARK: - Parallel overhead

    private func parallelRows(folder: URL) async throws -> [BenchmarkRow] {
        var behaviour = PlantNetStubBehaviour()
        behaviour.latency = apiLatency
        behaviour.quotaLimit = 1_000_000
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        // No cache: every call must reach the stub.
        let service = PlantNetService(
            client: PlantNetClient(configuration: PlantNetConfiguration(baseURL: stub.baseURL, apiKey: behaviour.apiKey)),
            quota: QuotaTracker(file: folder.appendingPathComponent("quota.json")),
            cache: nil, reachability: Reachability()
        )
        let online = OnlineIdentifier.live(service: service) { photo, organ in
            PlantNetImage(jpeg: photo, organ: organ, sha256: "bench")
        }
        let latency = onDeviceLatency
        let onDevice = OnDeviceIdentifier { _, _ in
            try await Task.sleep(for: latency)
            return Identification(
                source: .onDevice, predictions: [SpeciesPrediction(rank: 1, scientificName: "Monstera deliciosa", confidence: 0.5)],
                uncertain: true
            )
        }
        let catalog = PlantCatalog(plants: [
            CatalogPlant(scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant"], family: "Araceae",
                         category: .tropicalFoliage),
        ])
        let hybrid = HybridIdentifier(onDevice: onDevice, online: online, catalog: catalog)
        let photo = Data(repeating: 0xAB, count: 200_000)
        // Warm up the connection and the catalog.
        _ = try await hybrid.identify(photos: [photo], strategy: .parallel)
        var alone: [Double] = []
        var apiStrategy: [Double] = []
        var parallel: [Double] = []
        for _ in 0..<rounds {
            alone.append(try await Measure.seconds { _ = try await online.identify([photo], [.leaf], PlantNetOptions()) })
            apiStrategy.append(try await Measure.seconds { _ = try await hybrid.identify(photos: [photo], strategy: .api) })
            parallel.append(try await Measure.seconds { _ = try await hybrid.identify(photos: [photo], strategy: .parallel) })
        }
        let ms = 1000.0
        let aloneMedian = Measure.percentile(alone, 0.5) * ms
        let parallelMedian = Measure.percentile(parallel, 0.5) * ms
        return [
            BenchmarkRow(suite: name, name: "slower branch alone: API, stub \(Self.ms(apiLatency)) ms p50", value: aloneMedian, unit: "ms"),
            BenchmarkRow(suite: name, name: "hybrid api strategy p50", value: Measure.percentile(apiStrategy, 0.5) * ms, unit: "ms"),
            BenchmarkRow(suite: name, name: "hybrid parallel (device \(Self.ms(onDeviceLatency)) ms) p50", value: parallelMedian, unit: "ms"),
            // Each round runs the three back to back, so the paired difference cancels most of the machine's drift.
            BenchmarkRow(suite: name, name: "parallel overhead vs slower branch (paired p50)",
                         value: Measure.percentile(zip(parallel, alone).map { ($0 - $1) * ms }, 0.5), unit: "ms", below: 10),
            BenchmarkRow(suite: name, name: "parallel overhead vs slower branch (paired p90)",
                         value: Measure.percentile(zip(parallel, alone).map { ($0 - $1) * ms }, 0.9), unit: "ms"),
        ]
    }
}

/// The stub did not answer the peer's warm-up request, so the peer's figure would mean nothing.
private struct WarmUpFailed: Error, CustomStringConvertible {
    var description: String { "plantnet benchmark: the stub did not answer URLSession's warm-up request" }
}

extension PlantNetBenchmark {
    fileprivate static func ms(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
