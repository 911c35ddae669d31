import Foundation
import PlantGuideCore
import Synchronization

/// Tracks the Pl@ntNet daily quota from the answers' `remainingIdentificationRequests` and `RateLimit`
/// header, in a JSON file in the data directory so that every process sees the same count.
///
/// Every call reads the file and writes it back atomically, so two processes (two CLI runs, the CLI and the web
/// app) stay in step without talking to each other. The state resets at 00:00 UTC; at 0 left, or after a 429,
/// ``checkAvailable()`` refuses until then.
public final class QuotaTracker: Sendable {
    /// The state file.
    public let file: URL
    private let now: @Sendable () -> Date
    private let lock = Mutex(())

    /// A tracker persisted in `file`, reading the time from `now`.
    public init(file: URL, now: @escaping @Sendable () -> Date = { Date() }) {
        self.file = file
        self.now = now
    }

    /// The current state (after applying any reset that is due).
    public func status() -> QuotaStatus {
        lock.withLock { _ in Self.status(of: load()) }
    }

    /// Throws `quotaExhausted` while calls are blocked.
    public func checkAvailable() throws(PlantNetError) {
        let current = status()
        if current.isBlocked { throw .quotaExhausted(resetsAt: current.resetsAt) }
    }

    /// Records the counts of a successful answer and returns the new state.
    @discardableResult
    public func record(remaining: Int?) throws(PlantNetError) -> QuotaStatus {
        try update { state in
            if let remaining {
                state.remaining = max(remaining, 0)
                state.blocked = remaining <= 0
            }
        }
    }

    /// Records a 429: calls are blocked until `resetsAt`.
    @discardableResult
    public func recordExhausted(resetsAt: Date) throws(PlantNetError) -> QuotaStatus {
        try update { state in
            state.remaining = 0
            state.blocked = true
            // The quota resets daily: a reset further away than a day is a malformed answer, not a reason to
            // block for longer.
            state.resetsAt = min(max(resetsAt, now()), now().addingTimeInterval(Self.longestWait))
        }
    }

    // MARK: - Storage

    /// What the file holds.
    private struct State: Codable {
        var remaining: Int?
        var blocked: Bool
        var resetsAt: Date
        var updatedAt: Date
    }

    private static func status(of state: State) -> QuotaStatus {
        QuotaStatus(
            remaining: state.remaining, resetsAt: state.resetsAt,
            level: QuotaLevel(remaining: state.remaining, blocked: state.blocked)
        )
    }

    private func update(_ change: (inout State) -> Void) throws(PlantNetError) -> QuotaStatus {
        try lock.withLock { _ throws(PlantNetError) -> QuotaStatus in
            // Another process (a second CLI run, the web app) may update the file at the same moment; an
            // advisory lock on a side file keeps each read-modify-write whole.
            let lockFile = FileLock(url: file.appendingPathExtension("lock"))
            defer { lockFile.unlock() }
            var state = load()
            change(&state)
            state.updatedAt = now()
            do {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try AtomicFile.write(try encoder.encode(state), to: file)
            } catch {
                throw .storage("quota state \(file.path): \(error)")
            }
            return Self.status(of: state)
        }
    }

    /// The saved state, or a fresh one when the file is missing, unreadable, or from before the last reset.
    private func load() -> State {
        let time = now()
        let fresh = State(remaining: nil, blocked: false, resetsAt: QuotaCalendar.nextReset(after: time), updatedAt: time)
        guard let data = try? Data(contentsOf: file) else { return fresh }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        // A damaged file only loses the count, which the next answer restores; it is overwritten then.
        guard let saved = try? decoder.decode(State.self, from: data) else { return fresh }
        // A reset further ahead than the quota's one-day period is damage (a hand edit, a clock that jumped),
        // which would block the API until the file is deleted: start afresh instead.
        guard saved.resetsAt > time, saved.resetsAt <= time.addingTimeInterval(Self.longestWait) else { return fresh }
        return saved
    }

    /// The longest a block can last: the quota resets every day at 00:00 UTC, plus an hour of clock slack.
    static let longestWait: TimeInterval = 25 * 3600
}
