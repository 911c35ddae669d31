import Foundation
import PlantGuideCore
import PlantReminders
import PlantStore
import PlantStoreSQLite

/// Care reminders (issue #37): 50 households of 200 plants each (10,000 plants, 50 channels, one per member) on one
/// SQLite file; times a dry run (every digest built) and a sending round (each digest claimed, built, encoded as the
/// webhook's JSON and recorded). The transport answers 200 at once: the figure is PlantGuide's own work, not a network.
/// `PLANTGUIDE_BENCH_REMINDER_PLANTS` changes the plants per household.
struct ReminderBenchmark: BenchmarkSuite {
    let name = "reminders"
    let households = 50
    let plantsPerHousehold = ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_REMINDER_PLANTS"].flatMap(Int.init) ?? 200

    func run() async throws -> [BenchmarkRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-bench-reminders-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try CollectionDatabase.open(in: DataDirectory(url: folder))
        let guide = try CareGuide.bundled()
        let genera = guide.genera.keys.sorted()
        let rooms = ["Living room", "Kitchen", "Bedroom", "Bathroom", "Office", "Hall"]
        let start = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
        let startDay = CalendarDay(start, in: .gmt)
        var generator = SplitMix64(seed: 7)
        for index in 0..<households {
            let household = index == 0 ? 1 : try database.createHousehold(named: "Household \(index)", now: start).id
            let seeds = (0..<plantsPerHousehold).map { number in
                let genus = genera[(index * plantsPerHousehold + number) % genera.count]
                let events = (0..<4).map { _ in
                    (task: CareTask.water, day: startDay.adding(days: -Int(generator.next() % 30)), note: nil as String?)
                }
                return PlantSeed(
                    plant: NewPlant(name: "\(genus.capitalized) \(number)", room: rooms[number % rooms.count]),
                    profile: guide.profile(genus: genus, category: nil), events: events
                )
            }
            try HouseholdScope.$current.withValue(HouseholdScope(household: household)) {
                try database.addPlants(seeds, now: start)
            }
            _ = try database.addReminderChannel(
                NewReminderChannel(kind: .webhook, target: "https://hooks.example.org/\(household)", minuteOfDay: 480),
                household: household, now: start
            )
        }
        let runner = ReminderRunner(
            store: database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
            targets: ReminderTargets(allowLocal: true), transport: ReminderTransport { _, _, body in body.isEmpty ? 500 : 200 }
        )
        // 09:00 UTC three days on: past every channel's 08:00.
        let morning = startDay.adding(days: 3).start(in: .gmt).addingTimeInterval(9 * 3_600)
        var dry: [Double] = [], rounds: [Double] = [], tasks = 0, sent = 0
        _ = try await runner.run(now: morning, dryRun: true)
        for round in 0..<5 {
            dry.append(try await Measure.seconds {
                tasks = try await runner.run(now: morning, dryRun: true).reduce(0) { $0 + $1.tasks }
            })
            // Each round a new day, so every digest is claimed and sent again.
            let day = morning.addingTimeInterval(Double(round) * 86_400)
            rounds.append(try await Measure.seconds {
                sent = try await runner.run(now: day).filter { $0.state == .sent }.count
            })
        }
        let plants = households * plantsPerHousehold
        let label = "\(households) households, \(plants) plants"
        var idle: [BenchmarkRow] = []
        if let seconds = try await Self.idleServeCPU(window: idleWindow) {
            idle.append(BenchmarkRow(
                suite: name, name: "plantguide serve idle, a reminder channel set and nothing due: CPU per minute (\(Int(idleWindow)) s window)",
                value: seconds * 60 / idleWindow, unit: "s", below: 0.01
            ))
        }
        return idle + [
            BenchmarkRow(suite: name, name: "digests built, dry run (\(label))", value: Self.median(dry), unit: "s", below: 1),
            BenchmarkRow(
                suite: name, name: "sending round: \(households) digests claimed, built, encoded, recorded (\(label))",
                value: Self.median(rounds), unit: "s", below: 1
            ),
            BenchmarkRow(suite: name, name: "tasks in the digests (\(label))", value: Double(tasks), unit: "tasks"),
            BenchmarkRow(suite: name, name: "digests sent in the last round (\(label))", value: Double(sent), unit: "digests"),
        ]
    }

    /// How long the idle server is watched (`PLANTGUIDE_BENCH_IDLE_SECONDS`, default 60).
    var idleWindow: Double {
        ProcessInfo.processInfo.environment["PLANTGUIDE_BENCH_IDLE_SECONDS"].flatMap(Double.init).map { max(5, $0) } ?? 60
    }

    /// The CPU time (user and system) a `plantguide serve` beside this executable uses in `window` seconds once started,
    /// with a reminder channel configured and nothing due; `nil` where there is no such binary or no /proc.
    static func idleServeCPU(window: Double) async throws -> Double? {
        guard let tools = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        let binary = tools.appendingPathComponent("plantguide")
        guard FileManager.default.isExecutableFile(atPath: binary.path), FileManager.default.fileExists(atPath: "/proc/self/stat")
        else { return nil }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-bench-idle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        _ = try database.addReminderChannel(
            NewReminderChannel(kind: .webhook, target: "https://hooks.example.org/idle", minuteOfDay: 480), household: 1, now: Date()
        )
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--port", String(Int.random(in: 20_000..<40_000))]
        var environment = ProcessInfo.processInfo.environment
        environment["PLANTGUIDE_HOME"] = home.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // Started, its first reminder round done and what it loads lazily loaded.
        try await Task.sleep(for: .seconds(30))
        guard process.isRunning, let before = cpuSeconds(of: process.processIdentifier) else { return nil }
        try await Task.sleep(for: .milliseconds(Int64(window * 1000)))
        guard let after = cpuSeconds(of: process.processIdentifier) else { return nil }
        return after - before
    }

    /// A process's CPU time in seconds: the sum of its threads' run time from /proc (`schedstat`, in nanoseconds; the
    /// clock-tick counts in `stat` are too coarse for a hundredth of a second).
    private static func cpuSeconds(of pid: Int32) -> Double? {
        let tasks = "/proc/\(pid)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return nil }
        var nanoseconds = 0.0
        for thread in threads {
            guard let text = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                  let first = text.split(separator: " ").first, let value = Double(first) else { continue }
            nanoseconds += value
        }
        return nanoseconds / 1e9
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
