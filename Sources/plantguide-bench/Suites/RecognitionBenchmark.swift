import Foundation
import PlantClassifier
import PlantGuideCore
import PlantStore
import PlantStoreSQLite

/// Recognising your own plants at scale: 10,000 photos with ResNet50-sized embeddings (2,048 numbers) in a real
/// collection file; times storing them, loading them for a search, and the search itself (target < 2 ms).
struct RecognitionBenchmark: BenchmarkSuite {
    let name = "recognition"
    /// 10,000 unless `PLANTGUIDE_BENCH_EXEMPLARS` says otherwise.
    let count = ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_EXEMPLARS"].flatMap(Int.init) ?? 10_000
    let dimension = 2048

    func run() async throws -> [BenchmarkRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-bench-recognition-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(url: folder)
        let database = try CollectionDatabase.open(in: directory)
        let photos = PhotoLibrary(directory: directory, encoder: .storingOriginal)
        let model = EmbeddingModel(name: "resnet50-plantnet300k", checksum: String(repeating: "5", count: 64))
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        var generator = SplitMix64(seed: 7)
        func vector() -> [Float] {
            // Non-negative like pooled ReLU features, then scaled to length 1.
            let raw = (0..<dimension).map { _ in Float(generator.next() % 1000) / 1000 }
            let length = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return raw.map { $0 / length }
        }

        let profile = try CareGuide.bundled().profile(for: nil, name: "Plant")
        var seeds: [PlantSeed] = [], stored: [StoredPhoto] = []
        for index in 0..<count {
            var bytes = [UInt8](repeating: 0, count: 64)
            withUnsafeBytes(of: UInt64(index)) { for (offset, byte) in $0.enumerated() { bytes[8 + offset] = byte } }
            bytes.replaceSubrange(0..<3, with: [0xFF, 0xD8, 0xFF])
            let photo = try photos.store(Data(bytes), now: start)
            stored.append(photo)
            seeds.append(PlantSeed(plant: NewPlant(name: "Plant \(index)", nickname: "P\(index)"), profile: profile, photo: photo))
            if seeds.count == 500 {
                try database.addPlants(seeds, now: start)
                seeds.removeAll(keepingCapacity: true)
            }
        }
        if !seeds.isEmpty { try database.addPlants(seeds, now: start) }
        let vectors = stored.map { _ in vector() }
        let storeSeconds = try Measure.seconds {
            for (photo, vector) in zip(stored, vectors) { try database.setEmbedding(vector, model: model, forPhoto: photo.sha256, now: start) }
        }
        try database.checkpoint()
        let bytes = [CollectionDatabase.fileName, CollectionDatabase.fileName + "-wal"]
            .compactMap { try? FileManager.default.attributesOfItem(atPath: directory.appending($0).path)[.size] as? Int }.reduce(0, +)

        var exemplars: [CollectionExemplar] = []
        let loadSeconds = try Measure.seconds { exemplars = try database.exemplars(model: model) }
        var index: EmbeddingIndex?
        let packSeconds = try Measure.seconds { index = try EmbeddingIndex(vectors: exemplars.map(\.vector), dimension: dimension) }
        guard let index else { return [] }
        var searches: [Double] = []
        var found = 0
        for round in 0..<200 {
            let query = vectors[(round * 37) % vectors.count]
            searches.append(try Measure.seconds { found = try index.nearest(to: query, k: 10).count })
        }
        let ms = 1000.0
        return [
            BenchmarkRow(suite: name, name: "exemplars (\(dimension) numbers, float16)", value: Double(exemplars.count), unit: "photos"),
            BenchmarkRow(suite: name, name: "store one embedding", value: storeSeconds / Double(count) * ms, unit: "ms"),
            BenchmarkRow(suite: name, name: "database size", value: Double(bytes) / 1_048_576, unit: "MiB"),
            BenchmarkRow(suite: name, name: "load all embeddings", value: loadSeconds * ms, unit: "ms"),
            BenchmarkRow(suite: name, name: "pack the index", value: packSeconds * ms, unit: "ms"),
            BenchmarkRow(suite: name, name: "search 10 nearest p50", value: Measure.percentile(searches, 0.5) * ms, unit: "ms", below: 2),
            BenchmarkRow(suite: name, name: "search 10 nearest p95", value: Measure.percentile(searches, 0.95) * ms, unit: "ms", below: 2),
            BenchmarkRow(suite: name, name: "neighbours found", value: Double(found), unit: "photos"),
        ]
    }
}
