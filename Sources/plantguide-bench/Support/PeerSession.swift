import Foundation

/// A long-running helper process spoken to line by line over its standard input and output, so a
/// suite can interleave its own measurements with a peer's.
final class PeerSession {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Sends one line.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line the helper prints; fails if it exits first.
    func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw ChildProcess.ChildError.failed("peer helper exited early") }
            buffer.append(chunk)
        }
    }

    func wait() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
