import Foundation
import Hummingbird
import ServiceLifecycle
import Synchronization

/// Work a server repeats to stay in step with other replicas on the same store: settings another replica saved are
/// put in use, expired uploads forgotten.
public struct ServerRefresh: Sendable {
    /// How often it runs.
    public var interval: Duration
    /// One round.
    public var run: @Sendable () async -> Void

    /// Creates the refresh.
    public init(interval: Duration, run: @escaping @Sendable () async -> Void) {
        self.interval = interval
        self.run = run
    }

    /// `PLANTGUIDE_REFRESH_SECONDS` (0.1 to 3600), else 5 seconds: how soon a setting saved on one replica is used on
    /// the others.
    public static func interval(environment: [String: String]) -> Duration {
        guard let text = environment["PLANTGUIDE_REFRESH_SECONDS"], let seconds = Double(text), seconds.isFinite,
              (0.1...3600).contains(seconds) else { return .seconds(5) }
        return .milliseconds(Int64(seconds * 1000))
    }
}

/// A task done on some of the refresh rounds only: due on the first round, then once `interval` has passed since it
/// was last due.
final class RefreshCadence: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(every interval: Duration) {
        self.interval = interval
    }

    /// Whether the task is due now; when it is, the next one is due `interval` from now.
    func isDue() -> Bool {
        last.withLock { last in
            guard last.map({ ContinuousClock.now - $0 >= interval }) ?? true else { return false }
            last = ContinuousClock.now
            return true
        }
    }
}

/// Runs a ``ServerRefresh`` until the server stops.
struct RefreshService: Service {
    let refresh: ServerRefresh

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: refresh.interval)
                await refresh.run()
            }
        }
    }
}
