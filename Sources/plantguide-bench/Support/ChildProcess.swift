import Foundation

/// Runs helper programs for the suites.
enum ChildProcess {
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
        case failed(String)

        var description: String {
            switch self {
            case .failed(let command): "command failed: \(command)"
            }
        }
    }
}
