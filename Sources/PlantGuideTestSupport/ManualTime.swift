import Foundation
import Synchronization

/// A wall clock that moves only when told, for testing TTLs, quotas and schedules.
/// Pass `time.now` wherever a `@Sendable () -> Date` is expected.
public final class ManualTime: Sendable {
    private let current: Mutex<Date>

    /// Starts at `date`.
    public init(_ date: Date) {
        current = Mutex(date)
    }

    /// Starts at an ISO 8601 instant, e.g. `2026-03-01T23:59:00Z`.
    public convenience init(iso8601 text: String) {
        self.init(ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0))
    }

    /// The current instant.
    public var date: Date { current.withLock { $0 } }

    /// The clock as a closure.
    public var now: @Sendable () -> Date { { [self] in date } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
