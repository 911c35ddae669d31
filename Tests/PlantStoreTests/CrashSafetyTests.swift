import Foundation
import GRDB
import PlantGuideCore
import PlantGuideTestSupport
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// Kills a process that is writing to the collection at random moments and checks that the database
/// stays sound and keeps every write the process reported as committed.
@Suite struct CrashSafetyTests {
    @Test func sigkillDuringWritesLosesNothingReportedCommitted() throws {
        let executable = try CommandLineRunner.productsFolder().appendingPathComponent("plantguide")
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        var reported: [String] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<6 {
            let delay = Double.random(in: 0.3...1.5, using: &generator)
            let lines = try runAndKill(executable, home: home.directory.url, after: delay)
            #expect(lines.killed, "round \(round): the writer finished before it was killed")
            reported += lines.committed
            let database = try home.open()
            #expect(try database.integrityCheck() == ["ok"], "round \(round) after \(delay) s")
            let counts = try database.writer.read { db in
                try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                    SELECT plant.uuid, (SELECT COUNT(*) FROM careEvent WHERE careEvent.plantId = plant.id) AS events,
                           (SELECT COUNT(*) FROM careProfile WHERE careProfile.plantId = plant.id) AS profiles
                    FROM plant
                    """).map { row -> (String, [Int]) in (row["uuid"], [row["events"], row["profiles"]]) })
            }
            // Every reported write is there, complete.
            let missing = reported.filter { counts[$0] == nil }
            #expect(missing.isEmpty, "round \(round): \(missing.count) committed plants missing")
            // No write is half there: each plant has its profile and all its events.
            #expect(counts.values.allSatisfy { $0 == [3, 1] }, "round \(round): a partial write survived")
            #expect(counts.count >= reported.count)
        }
        #expect(reported.count > 0)
    }

    private func runAndKill(_ executable: URL, home: URL, after delay: Double) throws -> (committed: [String], killed: Bool) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["dev", "write-stress", "--count", "1000000"]
        var environment = ProcessInfo.processInfo.environment
        environment["PLANTGUIDE_HOME"] = home.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = OutputBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            output.data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        done.wait()
        let text = String(decoding: output.data, as: UTF8.self)
        // Only whole lines count: a line cut by the kill was not fully reported.
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        let committed = lines.compactMap { line in line.hasPrefix("committed ") ? String(line.dropFirst(10)) : nil }
        return (committed, process.terminationReason == .uncaughtSignal)
    }
}

private final class OutputBox: @unchecked Sendable {
    // Written once by the reading closure before the semaphore is signalled; read after waiting.
    var data = Data()
}
