import Foundation

/// Runs the built `plantguide` executable as a person would, in a fresh data directory, and
/// collects what it printed. Tests use it to check the command line end to end.
public struct CommandLineRunner: Sendable {
    /// What one run produced.
    public struct Outcome: Sendable {
        /// Exit status (when the process exited normally).
        public var status: Int32
        /// Whether the process was killed by a signal rather than exiting.
        public var killedBySignal: Bool
        /// Everything written to standard output.
        public var stdout: String
        /// Everything written to standard error.
        public var stderr: String

        /// Standard output parsed as JSON.
        public func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        }
    }

    /// The executable being run.
    public let executable: URL
    /// The data directory given to it as `PLANTGUIDE_HOME`.
    public let home: URL
    /// Extra environment variables.
    public var environment: [String: String]
    /// The largest file the run may write, in KiB (`ulimit -f`, with SIGXFSZ ignored so a write past it fails as on a
    /// full disk); `nil` for no limit.
    public var fileSizeLimitKiB: Int?

    /// Finds `plantguide` next to the test bundle (SwiftPM builds both into one folder) and makes a
    /// new, empty data directory for it.
    public init(executableName: String = "plantguide", environment: [String: String] = [:]) throws {
        executable = try Self.productsFolder().appendingPathComponent(executableName)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw RunnerError.executableMissing(executable.path)
        }
        home = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        self.environment = environment
    }

    /// Runs the executable with `arguments`, optionally feeding `input` to standard input.
    public func run(_ arguments: [String], input: Data? = nil) throws -> Outcome {
        let process = Process()
        if let limit = fileSizeLimitKiB {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(limit); exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["PLANTGUIDE_HOME"] = home.path
        env["NO_COLOR"] = "1"
        // English whatever the machine's locale, unless a test asks for a language (`environment`).
        env.removeValue(forKey: "LC_ALL")
        env.removeValue(forKey: "LC_MESSAGES")
        env["LANG"] = "C.UTF-8"
        env.removeValue(forKey: "PLANTNET_API_KEY")
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        let collected = Collected()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            killedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: collected.out, as: UTF8.self),
            stderr: String(decoding: collected.err, as: UTF8.self)
        )
    }

    /// Removes the data directory.
    public func cleanUp() {
        try? FileManager.default.removeItem(at: home)
    }

    /// The folder SwiftPM builds products into (the one holding the running test bundle).
    public static func productsFolder() throws -> URL {
        let candidates = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for case let folder? in candidates {
            let url = folder.hasDirectoryPath ? folder : folder.deletingLastPathComponent()
            for candidate in [url, url.deletingLastPathComponent()]
            where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("plantguide").path) {
                return candidate
            }
        }
        throw RunnerError.executableMissing("plantguide next to \(Bundle.main.bundleURL.path)")
    }

    /// Why the runner could not start.
    public enum RunnerError: Error, CustomStringConvertible {
        case executableMissing(String)

        public var description: String {
            switch self {
            case .executableMissing(let path): "The executable was not built: \(path). Run `swift build` first."
            }
        }
    }
}

private final class Collected: @unchecked Sendable {
    // Written once per pipe by the reading closures; read after the group has finished.
    private let lock = NSLock()
    private(set) var out = Data()
    private(set) var err = Data()

    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if isOut { out = data } else { err = data }
    }
}
