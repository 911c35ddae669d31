import Foundation
import Synchronization

/// Remembers that the service could not be reached, for a short back-off, so that the next identifications
/// answer from the device at once instead of waiting for another failed connection. No platform network
/// monitor is needed: a failed connection is the signal.
public final class Reachability: Sendable {
    /// How long the service counts as unreachable after a failed connection.
    public let backOff: TimeInterval
    private let now: @Sendable () -> Date
    private let unreachableUntil = Mutex<Date?>(nil)
    private let failed = Mutex<Date?>(nil)

    /// Creates a tracker with a back-off (default 60 s) and a clock.
    public init(backOff: TimeInterval = 60, now: @escaping @Sendable () -> Date = { Date() }) {
        self.backOff = backOff
        self.now = now
    }

    /// Whether a request may be tried now.
    public var isReachable: Bool {
        let time = now()
        return unreachableUntil.withLock { until in
            guard let current = until else { return true }
            if current <= time { until = nil; return true }
            return false
        }
    }

    /// Until when requests are skipped, if they are.
    public var retryAfter: Date? {
        isReachable ? nil : unreachableUntil.withLock { $0 }
    }

    /// When the last connection failed, unless an answer came since.
    public var lastFailure: Date? { failed.withLock { $0 } }

    /// Records a failed connection.
    public func markUnreachable() {
        let time = now()
        unreachableUntil.withLock { $0 = time.addingTimeInterval(backOff) }
        failed.withLock { $0 = time }
    }

    /// Records a successful answer.
    public func markReachable() {
        unreachableUntil.withLock { $0 = nil }
        failed.withLock { $0 = nil }
    }
}
