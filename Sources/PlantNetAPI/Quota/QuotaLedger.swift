import Foundation

/// Where the daily Pl@ntNet quota is counted, seen alike by every process that uses the key: the command line, the
/// web app, and every replica of it on one database.
///
/// A call is counted before it is made: ``reserve(keeping:)`` takes one request from what is left today, and only one
/// caller can take the last one, so concurrent callers never spend more than the day allows. The answer then
/// ``settle(remaining:)``s the count with what Pl@ntNet reports; a request that never reached Pl@ntNet is given back
/// with ``cancelReservation()``. The count resets at 00:00 UTC.
public protocol QuotaLedger: Sendable {
    /// The state now.
    func status() async -> QuotaStatus
    /// Takes one request from today's quota, leaving at least `floor` for others (a re-check run keeps a reserve for
    /// the identifications people ask for). Throws ``PlantNetError/quotaExhausted(resetsAt:)`` when calls are
    /// blocked or no more than `floor` are left.
    func reserve(keeping floor: Int) async throws(PlantNetError) -> QuotaStatus
    /// Records what a successful answer reported (`nil` when it said nothing) and returns the new state.
    @discardableResult
    func settle(remaining: Int?) async throws(PlantNetError) -> QuotaStatus
    /// Gives back a reservation whose request never reached Pl@ntNet (offline, timed out before sending).
    func cancelReservation() async
    /// Records a 429: calls are blocked until `resetsAt` (at most a day away).
    @discardableResult
    func recordExhausted(resetsAt: Date) async throws(PlantNetError) -> QuotaStatus
}

extension QuotaTracker: QuotaLedger {
    /// The file tracker counts only what Pl@ntNet reports: it refuses while blocked, or at `floor` or fewer left when
    /// the count is known, and keeps no reservations (two processes may both take the last request; the database
    /// ledger does not let them).
    public func reserve(keeping floor: Int) async throws(PlantNetError) -> QuotaStatus {
        let current = status()
        if current.isBlocked || (current.remaining.map { $0 <= floor } ?? false) {
            throw .quotaExhausted(resetsAt: current.resetsAt)
        }
        return current
    }

    /// Records the reported count.
    @discardableResult
    public func settle(remaining: Int?) async throws(PlantNetError) -> QuotaStatus {
        try record(remaining: remaining)
    }

    /// Nothing was reserved.
    public func cancelReservation() async {}
}
