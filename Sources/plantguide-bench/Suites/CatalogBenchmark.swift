import Foundation
import PlantCatalog

/// Catalog load time and search latency over a fixed set of realistic queries.
struct CatalogBenchmark: BenchmarkSuite {
    let name = "catalog"

    func run() async throws -> [BenchmarkRow] {
        // The first load pays for reading the file from disk and building the index.
        let first = try Measure.seconds { try PlantCatalog().load() }
        var loads: [Double] = []
        var loadCPU: [Double] = []
        for _ in 0..<20 {
            loads.append(try Measure.seconds { try PlantCatalog().load() })
            loadCPU.append(try Measure.threadCPUSeconds { try PlantCatalog().load() })
        }
        let catalog = PlantCatalog()
        try catalog.load()
        // Warm up, then time every query several times.
        for query in CatalogQueries.all { _ = try catalog.search(query, limit: 20) }
        var latencies: [Double] = []
        var cpu: [Double] = []
        var fastest = [String: Double]()
        var emptyAnswers = 0
        for _ in 0..<5 {
            for query in CatalogQueries.all {
                var count = 0
                let seconds = try Measure.seconds { count = try catalog.search(query, limit: 20).count }
                latencies.append(seconds)
                cpu.append(try Measure.threadCPUSeconds { _ = try catalog.search(query, limit: 20) })
                fastest[query] = min(fastest[query] ?? .infinity, seconds)
                if count == 0 { emptyAnswers += 1 }
            }
        }
        if ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_DETAIL"] != nil {
            for (query, seconds) in fastest.sorted(by: { $0.value > $1.value }).prefix(15) {
                FileHandle.standardError.write(Data(String(format: "  %8.3f ms  %@\n", seconds * 1000, query).utf8))
            }
        }
        let ms = 1000.0
        return [
            BenchmarkRow(suite: name, name: "load (first, cold index)", value: first * ms, unit: "ms", below: 30),
            BenchmarkRow(suite: name, name: "load (median of 20)", value: Measure.percentile(loads, 0.5) * ms, unit: "ms", below: 30),
            BenchmarkRow(suite: name, name: "load CPU time (median of 20)", value: Measure.percentile(loadCPU, 0.5) * ms, unit: "ms", below: 30),
            BenchmarkRow(suite: name, name: "queries", value: Double(CatalogQueries.all.count), unit: "queries"),
            BenchmarkRow(suite: name, name: "queries with no result", value: Double(emptyAnswers / 5), unit: "queries"),
            BenchmarkRow(suite: name, name: "search p50", value: Measure.percentile(latencies, 0.5) * ms, unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "search p99", value: Measure.percentile(latencies, 0.99) * ms, unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "search CPU time p99", value: Measure.percentile(cpu, 0.99) * ms, unit: "ms", below: 1),
            BenchmarkRow(suite: name, name: "search max", value: (latencies.max() ?? 0) * ms, unit: "ms"),
        ]
    }
}
