import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program and reports its wall time and its own peak resident memory (from `wait4`), which
/// `Process` does not expose. Output goes to /dev/null.
enum ChildProcess {
    struct Outcome {
        var status: Int32
        var seconds: Double
        var peakResidentMiB: Double
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ChildError.spawn(executable, spawned) }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw ChildError.wait(executable) }
        let elapsed = ContinuousClock.now - start
        #if canImport(Darwin)
        let mib = Double(usage.ru_maxrss) / 1_048_576
        #else
        let mib = Double(usage.ru_maxrss) / 1024
        #endif
        return Outcome(
            status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            peakResidentMiB: mib
        )
    }

    /// Runs a program and returns its standard output; fails on a non-zero exit.
    static func output(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ChildError.failed(([executable] + arguments).joined(separator: " ")) }
        return data
    }

    enum ChildError: Error, CustomStringConvertible {
        case spawn(String, Int32)
        case wait(String)
        case failed(String)

        var description: String {
            switch self {
            case .spawn(let path, let code): "cannot start \(path) (error \(code))"
            case .wait(let path): "lost track of \(path)"
            case .failed(let command): "command failed: \(command)"
            }
        }
    }
}
