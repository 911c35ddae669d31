import Foundation
import Synchronization

/// Limits failed log-ins per client: after `maximumFailures` failures within `window`, further attempts
/// are refused until the oldest failure leaves the window. Successful log-ins clear the client's record.
public final class LoginThrottle: Sendable {
    private let maximumFailures: Int
    private let window: TimeInterval
    private let now: @Sendable () -> Date
    private let failures = Mutex<[String: [Date]]>([:])

    /// Creates a throttle.
    public init(maximumFailures: Int = 5, window: TimeInterval = 15 * 60, now: @escaping @Sendable () -> Date = Date.init) {
        self.maximumFailures = maximumFailures
        self.window = window
        self.now = now
    }

    /// Seconds `client` must wait before trying again, or `nil` when it may try now.
    public func retryAfter(client: String) -> Int? {
        let current = now()
        return failures.withLock { table in
            let recent = (table[client] ?? []).filter { current.timeIntervalSince($0) < window }
            table[client] = recent.isEmpty ? nil : recent
            guard recent.count >= maximumFailures, let oldest = recent.first else { return nil }
            return max(1, Int((window - current.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Records a failed attempt.
    public func recordFailure(client: String) {
        let current = now()
        failures.withLock { table in
            // Bound memory if many clients fail: forget the stalest records first.
            if table.count > 10_000 { table = table.filter { current.timeIntervalSince($0.value.last ?? current) < window } }
            table[client, default: []].append(current)
        }
    }

    /// Forgets a client's failures after it logged in.
    public func recordSuccess(client: String) {
        _ = failures.withLock { $0.removeValue(forKey: client) }
    }
}
