import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PlantGuideTestSupport
import Testing

/// `plantguide identify --strategy api` waiting for a slow Pl@ntNet answer, measured as a user would: the process's
/// own CPU time (from `wait4`), which a client that busy-waits while the answer is pending (FoundationNetworking's
/// URLSession on Linux: a whole core) would push to about the length of the wait.
@Suite struct WaitingCPUTests {
    @Test func waitingForASlowAnswerLeavesTheProcessIdle() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let cli = try CommandLineRunner(environment: [
            "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTNET_API_KEY": "stub-key",
        ])
        defer { cli.cleanUp() }
        // Two photos, so the second run is not answered from the cache.
        var photos: [String] = []
        for seed: UInt8 in [11, 12] {
            let url = cli.home.appendingPathComponent("photo-\(seed).png")
            try PNGFixture.gradient(width: 96, height: 64, seed: seed).write(to: url)
            photos.append(url.path)
        }

        // The same work without the wait, so start-up, decoding and the answer's handling are not counted as waiting.
        let quick = try await cli.runMeasuringCPU(["identify", photos[0], "--strategy", "api", "--json"])
        #expect(quick.status == 0, "\(quick.stdout)")
        stub.configure { $0.latency = .milliseconds(2500) }
        let slow = try await cli.runMeasuringCPU(["identify", photos[1], "--strategy", "api", "--json"])
        #expect(slow.status == 0, "\(slow.stdout)")
        #expect(slow.stdout.contains("\"plantNetAPI\""), "answered by Pl@ntNet, after the wait: \(slow.stdout)")
        #expect(stub.requestCount == 2)
        // Busy-waiting costs about 2.5 s of CPU here; sleeping costs next to nothing.
        #expect(slow.cpuSeconds - quick.cpuSeconds < 0.5, "quick \(quick.cpuSeconds) s, slow \(slow.cpuSeconds) s of CPU")
    }
}

extension CommandLineRunner {
    /// What one run cost.
    struct Measured {
        var status: Int32
        var stdout: String
        /// User + system CPU seconds of the child process.
        var cpuSeconds: Double
    }

    /// Runs the executable like ``run(_:input:)`` but with `posix_spawn` and `wait4`, which report the child's own
    /// CPU time (tests running in parallel in this process do not count). Standard error is discarded. The wait
    /// happens on a thread of its own, so the tests' task pool is not held while the child runs.
    func runMeasuringCPU(_ arguments: [String]) async throws -> Measured {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try spawnAndWait(arguments) }) }.start()
        }
    }

    private func spawnAndWait(_ arguments: [String]) throws -> Measured {
        var env = ProcessInfo.processInfo.environment
        env["PLANTGUIDE_HOME"] = home.path
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "PLANTNET_API_KEY")
        env.merge(environment) { _, new in new }
        let output = home.appendingPathComponent("stdout-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SpawnFailed(code: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw SpawnFailed(code: errno) }
        }
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        // Exited normally: the low 7 bits are 0 and the status sits in the next byte; killed: report -1.
        let exitStatus: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
        return Measured(
            status: exitStatus, stdout: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime)
        )
    }

    /// `posix_spawn` or `wait4` failed.
    struct SpawnFailed: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "could not run the executable: \(String(cString: strerror(code)))" }
    }
}
