import Foundation
import PlantCatalog
import PlantGuideCore
import PlantNetStub
import PlantIdentification
import PlantNetAPI

/// Identification cache lookups, and what running both identifiers in parallel costs over the slower one
/// alone, against the loopback Pl@ntNet stub with a fixed latency.
struct PlantNetBenchmark: BenchmarkSuite {
    let name = "plantnet"

    /// Latency of the stub (the slower branch) and of the fake on-device classifier.
    private let apiLatency = Duration.milliseconds(150)
    private let onDeviceLatency = Duration.milliseconds(60)
    private let rounds = 40

    func run() async throws -> [BenchmarkRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try cacheRows(folder: folder) + (try await parallelRows(folder: folder))
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

extension PlantNetBenchmark {
    fileprivate static func ms(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
