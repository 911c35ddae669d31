import Foundation
import PlantGuideCore
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite

/// A large collection: 10,000 plants with care events and photos; times the due list and the
/// plant list, and reports the database size. With `PLANTGUIDE_BENCH_POSTGRES_URL` (a server it may create a database
/// on) the same collection is copied into PostgreSQL (as `plantguide migrate` does) and timed there too, in the same run.
struct StoreBenchmark: BenchmarkSuite {
    let name = "store"
    /// 10,000 unless `PLANTGUIDE_BENCH_STORE_PLANTS` says otherwise (smaller runs for profiling).
    let plantCount = ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_STORE_PLANTS"].flatMap(Int.init) ?? 10_000
    let eventsPerPlant = 12

    func run() async throws -> [BenchmarkRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-bench-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(url: folder)
        let database = try CollectionDatabase.open(in: directory)
        let photos = PhotoLibrary(directory: directory, encoder: .storingOriginal)
        let guide = try CareGuide.bundled()
        let categories = PlantCategory.allCases
        let genera = guide.genera.keys.sorted()
        let rooms = ["Living room", "Kitchen", "Bedroom", "Bathroom", "Office", "Hall", "Balcony", "Studio"]
        let start = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
        let startDay = CalendarDay(start, in: .current)
        var generator = SplitMix64(seed: 42)

        // Add in batches of 500 plants per transaction, as an import would.
        var seeds: [PlantSeed] = []
        let addSeconds = try Measure.seconds {
            for index in 0..<plantCount {
                var bytes = [UInt8](repeating: 0, count: 2048)
                for offset in stride(from: 0, to: bytes.count, by: 8) {
                    withUnsafeBytes(of: generator.next()) { word in
                        for (i, byte) in word.enumerated() where offset + i < bytes.count { bytes[offset + i] = byte }
                    }
                }
                bytes.replaceSubrange(0..<3, with: [0xFF, 0xD8, 0xFF])
                let photo = try photos.store(Data(bytes), now: start)
                let genus = genera[index % genera.count]
                let profile = index % 3 == 0
                    ? guide.profile(genus: nil, category: categories[index % categories.count])
                    : guide.profile(genus: genus, category: nil)
                let events = (0..<eventsPerPlant).map { number in
                    (task: CareTask.allCases[number % 3 == 2 ? 1 : 0], day: startDay.adding(days: -Int(generator.next() % 200)), note: nil as String?)
                }
                seeds.append(PlantSeed(
                    plant: NewPlant(name: "\(genus.capitalized) \(index)", room: rooms[index % rooms.count]),
                    profile: profile, photo: photo, events: events
                ))
                if seeds.count == 500 {
                    try database.addPlants(seeds, now: start)
                    seeds.removeAll(keepingCapacity: true)
                }
            }
            if !seeds.isEmpty { try database.addPlants(seeds, now: start) }
        }

        let planner = CarePlanner(store: database, hemisphere: .north, timeZone: .current) { start.addingTimeInterval(86_400 * 3) }
        var dueCount = 0, listCount = 0
        _ = try await planner.due(withinDays: 7)
        _ = try database.plants()
        var stateRead: [Double] = [], due: [Double] = [], list: [Double] = [], roomList: [Double] = [], dueCPU: [Double] = [], listCPU: [Double] = []
        var dueAfterChange: [Double] = [], listAfterChange: [Double] = [], dueAfterOwnChange: [Double] = []
        // Another process on the same file (the command line while the server runs, say), with lists of its own.
        let other = try CollectionDatabase.open(in: directory)
        for round in 0..<20 {
            var cpu = Self.threadCPUSeconds()
            due.append(try await Measure.seconds { dueCount = try await planner.due(withinDays: 7).rooms.reduce(0) { $0 + $1.tasks.count } })
            dueCPU.append(Self.threadCPUSeconds() - cpu)
            // The last round's care, recorded by the other process, changed the household: the first list rereads the
            // plants changed since, the second is what a page reloaded with nothing changed meets.
            listAfterChange.append(try Measure.seconds { _ = try database.plants() })
            cpu = Self.threadCPUSeconds()
            list.append(try Measure.seconds { listCount = try database.plants().count })
            listCPU.append(Self.threadCPUSeconds() - cpu)
            roomList.append(try Measure.seconds { _ = try database.plants(room: "Kitchen") })
            // Someone records care through this store: the next due list reads that plant's state only.
            try database.logCare(plantId: Int64(round % plantCount + 1), task: .mist, day: startDay, now: start)
            dueAfterOwnChange.append(try await Measure.seconds { _ = try await planner.due(withinDays: 7) })
            // Someone records care through another process: the next due list rereads the plants the log names since.
            try other.logCare(plantId: Int64((round + 20) % plantCount + 1), task: .mist, day: startDay, now: start)
            dueAfterChange.append(try await Measure.seconds { _ = try await planner.due(withinDays: 7) })
            try other.logCare(plantId: Int64((round + 40) % plantCount + 1), task: .mist, day: startDay, now: start)
            stateRead.append(try Measure.seconds { _ = try database.careStates() })
        }
        let postgres = try await postgresRows(copying: database, now: start.addingTimeInterval(86_400 * 3))
        try database.checkpoint()
        let files = [CollectionDatabase.fileName, CollectionDatabase.fileName + "-wal"]
        let bytes = files.compactMap { try? FileManager.default.attributesOfItem(atPath: directory.appending($0).path)[.size] as? Int }
            .reduce(0, +)
        let ms = 1000.0
        return [
            BenchmarkRow(suite: name, name: "plants added (\(eventsPerPlant) events + 1 photo each)", value: Double(plantCount), unit: "plants"),
            BenchmarkRow(suite: name, name: "add rate", value: Double(plantCount) / addSeconds, unit: "plants/s"),
            BenchmarkRow(suite: name, name: "care due (7 days) p50", value: Measure.percentile(due, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due (7 days) p95", value: Measure.percentile(due, 0.95) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due right after care recorded here p50", value: Measure.percentile(dueAfterOwnChange, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due right after care recorded here p95", value: Measure.percentile(dueAfterOwnChange, 0.95) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due right after a change by another process p50", value: Measure.percentile(dueAfterChange, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due right after a change by another process p95", value: Measure.percentile(dueAfterChange, 0.95) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care state read after a change (part of it) p50", value: Measure.percentile(stateRead, 0.5) * ms, unit: "ms"),
            BenchmarkRow(suite: name, name: "care due (7 days) min", value: (due.min() ?? 0) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due (7 days) CPU p50", value: Measure.percentile(dueCPU, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "care due tasks found", value: Double(dueCount), unit: "tasks"),
            BenchmarkRow(suite: name, name: "collection list p50", value: Measure.percentile(list, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "collection list p95", value: Measure.percentile(list, 0.95) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "collection list right after a change by another process p50", value: Measure.percentile(listAfterChange, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "collection list right after a change by another process p95", value: Measure.percentile(listAfterChange, 0.95) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "collection list CPU p50", value: Measure.percentile(listCPU, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "collection list plants", value: Double(listCount), unit: "plants"),
            BenchmarkRow(suite: name, name: "collection list --room p50", value: Measure.percentile(roomList, 0.5) * ms, unit: "ms", below: 20),
            BenchmarkRow(suite: name, name: "database size", value: Double(bytes) / 1_048_576, unit: "MiB"),
            BenchmarkRow(suite: name, name: "peak memory", value: Measure.peakResidentMiB(), unit: "MiB"),
        ] + postgres
    }

    /// The same collection on PostgreSQL: copied into a fresh database on the server `PLANTGUIDE_BENCH_POSTGRES_URL`
    /// names (dropped afterwards), then the due list and the plant list timed through the same store protocol the
    /// server uses. No rows when the variable is not set.
    private func postgresRows(copying database: CollectionDatabase, now: Date) async throws -> [BenchmarkRow] {
        guard let admin = ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_POSTGRES_URL"], !admin.isEmpty else {
            FileHandle.standardError.write(Data("store: PLANTGUIDE_BENCH_POSTGRES_URL is not set, so PostgreSQL is not timed\n".utf8))
            return []
        }
        guard case .postgres(let server) = try StoreLocation(url: admin) else {
            throw StoreError.invalid("PLANTGUIDE_BENCH_POSTGRES_URL must be a postgres:// URL")
        }
        var administration = PostgresStore.Options()
        administration.migrate = false
        let benchDatabase = "plantguide_bench_\(UUID().uuidString.prefix(8).lowercased())"
        try await PostgresStore.withStore(server, options: administration) { admin in
            try await admin.execute("CREATE DATABASE \(benchDatabase)", operation: "create the benchmark database")
        }
        var location = server
        location.database = benchDatabase
        do {
            var replicaOptions = PostgresStore.Options()
            replicaOptions.migrate = false
            let rows = try await PostgresStore.withStore(location) { store in try await PostgresStore.withStore(location, options: replicaOptions) { other in
                let copySeconds = try await Measure.seconds { _ = try await store.copyCollection(from: database, replacing: false) }
                let planner = CarePlanner(store: store, hemisphere: .north, timeZone: .current) { now }
                _ = try await planner.due(withinDays: 7)
                var due: [Double] = [], list: [Double] = [], dueCPU: [Double] = [], dueAfterChange: [Double] = [], listAfterChange: [Double] = []
                var dueAfterOwnChange: [Double] = []
                var dueCount = 0, listCount = 0
                let today = CalendarDay(now, in: .current)
                for round in 0..<20 {
                    due.append(try await Measure.seconds { dueCount = try await planner.due(withinDays: 7).rooms.reduce(0) { $0 + $1.tasks.count } })
                    listAfterChange.append(try await Measure.seconds { _ = try await store.plants(room: nil) })
                    list.append(try await Measure.seconds { listCount = try await store.plants(room: nil).count })
                    // Someone records care on this replica: the next due list reads that plant only.
                    _ = try await store.logCare(plantId: Int64(round % plantCount + 1), task: .mist, day: today, note: nil, now: now)
                    dueAfterOwnChange.append(try await Measure.seconds { _ = try await planner.due(withinDays: 7) })
                    // Someone records care on another replica (a pool of its own): the next due list rereads the plants
                    // changed since.
                    _ = try await other.logCare(plantId: Int64((round + 20) % plantCount + 1), task: .mist, day: today, note: nil, now: now)
                    // The whole process's CPU: the awaits may resume on another thread, so one thread's clock can miss
                    // work or even run backwards.
                    let cpu = Measure.processCPUSeconds()
                    dueAfterChange.append(try await Measure.seconds { _ = try await planner.due(withinDays: 7) })
                    dueCPU.append(Measure.processCPUSeconds() - cpu)
                }
                let ms = 1000.0
                return [
                    BenchmarkRow(suite: name, name: "PostgreSQL: copy of the collection (migrate)", value: copySeconds, unit: "s"),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due (7 days) p50", value: Measure.percentile(due, 0.5) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due (7 days) p95", value: Measure.percentile(due, 0.95) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due right after care recorded here p50", value: Measure.percentile(dueAfterOwnChange, 0.5) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due right after care recorded here p95", value: Measure.percentile(dueAfterOwnChange, 0.95) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due right after a change on another replica p50", value: Measure.percentile(dueAfterChange, 0.5) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due right after a change on another replica p95", value: Measure.percentile(dueAfterChange, 0.95) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due after another replica's change, CPU of this process p50", value: Measure.percentile(dueCPU, 0.5) * ms, unit: "ms"),
                    BenchmarkRow(suite: name, name: "PostgreSQL: care due tasks found", value: Double(dueCount), unit: "tasks"),
                    BenchmarkRow(suite: name, name: "PostgreSQL: collection list p50", value: Measure.percentile(list, 0.5) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: collection list p95", value: Measure.percentile(list, 0.95) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: collection list right after a change on another replica p50", value: Measure.percentile(listAfterChange, 0.5) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: collection list right after a change on another replica p95", value: Measure.percentile(listAfterChange, 0.95) * ms, unit: "ms", below: 20),
                    BenchmarkRow(suite: name, name: "PostgreSQL: collection list plants", value: Double(listCount), unit: "plants"),
                ]
            } }
            try await dropBenchmarkDatabase(benchDatabase, server: server, options: administration)
            return rows
        } catch {
            try? await dropBenchmarkDatabase(benchDatabase, server: server, options: administration)
            throw error
        }
    }

    private func dropBenchmarkDatabase(_ name: String, server: PostgresLocation, options: PostgresStore.Options) async throws {
        try await PostgresStore.withStore(server, options: options) { admin in
            try await admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", operation: "drop the benchmark database")
        }
    }
}

extension StoreBenchmark {
    /// CPU time of the calling thread: unlike wall time, it does not grow when other processes
    /// share the cores, so the figures stay comparable on a busy machine.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
