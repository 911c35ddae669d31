import Foundation

/// One request taken from a day's quota by ``QuotaLedger/reserve(keeping:)``: settled with Pl@ntNet's report, or
/// given back, on the day it was taken, even when the answer arrives after midnight.
public struct QuotaReservation: Sendable, Hashable {
    /// The UTC day the request was counted on (`YYYY-MM-DD`); `nil` when the ledger counts nothing of its own.
    public var day: String?
    /// The quota as it stood once the request was taken.
    public var status: QuotaStatus

    /// Describes a reservation.
    public init(day: String?, status: QuotaStatus) {
        self.day = day
        self.status = status
    }
}

/// Where the daily Pl@ntNet quota is counted, seen alike by every process that uses the key: the command line, the
/// web app, and every replica of it on one database.
///
/// A call is counted before it is made: ``reserve(keeping:)`` takes one request from what is left today, and only one
/// caller can take the last one, so concurrent callers never spend more than the day allows. The answer then
/// ``settle(_:remaining:)``s the count with what Pl@ntNet reports; a request that failed without an answer is given
/// back with ``cancel(_:)``. The count resets at 00:00 UTC.
public protocol QuotaLedger: Sendable {
    /// The state now.
    func status() async -> QuotaStatus
    /// Takes one request from today's quota, leaving at least `floor` for others (a re-check run keeps a reserve for
    /// the identifications people ask for). Throws ``PlantNetError/quotaExhausted(resetsAt:)`` when calls are
    /// blocked or no more than `floor` are left. A ledger that cannot be read lets the call go (Pl@ntNet still refuses
    /// what it must).
    func reserve(keeping floor: Int) async throws(PlantNetError) -> QuotaReservation
    /// Records what a successful answer reported (`nil` when it said nothing) and returns the new state.
    @discardableResult
    func settle(_ reservation: QuotaReservation, remaining: Int?) async throws(PlantNetError) -> QuotaStatus
    /// Gives back a reservation whose request brought no answer to count (it failed, or was refused other than for
    /// the quota). Pl@ntNet's next report corrects the count if it did count it.
    func cancel(_ reservation: QuotaReservation) async
    /// Records a 429: calls are blocked until `resetsAt` (at most a day away), when the quota starts afresh.
    @discardableResult
    func recordExhausted(resetsAt: Date) async throws(PlantNetError) -> QuotaStatus
}

extension QuotaTracker: QuotaLedger {
    /// The file tracker counts only what Pl@ntNet reports: it refuses while blocked, or at `floor` or fewer left when
    /// the count is known, and keeps no reservations (two processes may both take the last request; the database
    /// ledger does not let them).
    public func reserve(keeping floor: Int) async throws(PlantNetError) -> QuotaReservation {
        let current = status()
        if current.isBlocked || (current.remaining.map { $0 <= floor } ?? false) {
            throw .quotaExhausted(resetsAt: current.resetsAt)
        }
        return QuotaReservation(day: nil, status: current)
    }

    /// Records the reported count.
    @discardableResult
    public func settle(_ reservation: QuotaReservation, remaining: Int?) async throws(PlantNetError) -> QuotaStatus {
        try record(remaining: remaining)
    }

    /// Nothing was reserved.
    public func cancel(_ reservation: QuotaReservation) async {}
}
