import Foundation

/// A one-line progress bar on standard error, redrawn in place. When standard error is not a terminal it is silent so
/// logs and tests stay clean, or, with `logLines`, writes a plain line at each tenth of a known total (a long download
/// in a log).
final class ProgressBar: @unchecked Sendable {
    // Updated from download callbacks on another thread; the lock keeps lines whole.
    private let lock = NSLock()
    private let label: String
    private let enabled: Bool
    private var lastDrawn = ContinuousClock.now - .seconds(1)
    private var lastTenth = -1

    private let logLines: Bool

    init(label: String, logLines: Bool = false, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        self.logLines = logLines
        enabled = isatty(STDERR_FILENO) == 1 && environment["TERM"] != "dumb"
    }

    /// Redraws with `done` of `total` (unknown total: a count only). `detail` is shown after the bar.
    func update(done: Double, total: Double?, detail: String, force: Bool = false) {
        guard enabled else {
            guard logLines, let total, total > 0 else { return }
            let tenth = Int(min(1, max(0, done / total)) * 10)
            lock.withLock {
                guard tenth > lastTenth else { return }
                lastTenth = tenth
                FileHandle.standardError.write(Data("\(label): \(tenth * 10) % (\(detail))\n".utf8))
            }
            return
        }
        lock.withLock {
            let now = ContinuousClock.now
            guard force || now - lastDrawn > .milliseconds(100) else { return }
            lastDrawn = now
            var line = "\r\u{1B}[2K\(label) "
            if let total, total > 0 {
                let fraction = min(1, max(0, done / total))
                let filled = Int(fraction * 30)
                line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] "
                line += String(format: "%3.0f %% ", fraction * 100)
            }
            FileHandle.standardError.write(Data((line + detail).utf8))
        }
    }

    /// Ends the bar's line.
    func finish() {
        guard enabled else { return }
        lock.withLock { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
