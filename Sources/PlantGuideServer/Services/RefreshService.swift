import Foundation
import Hummingbird
import ServiceLifecycle

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
