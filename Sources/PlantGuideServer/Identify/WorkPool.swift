import Foundation
import NIOPosix
import PlantStore

/// Where the server's CPU-heavy work runs: photo decoding and re-encoding, inference and password hashing.
///
/// Request handlers run as tasks on Swift's cooperative pool, which has one thread per core (two here). Heavy
/// synchronous work done there holds those threads, so every other request — `/healthz`, a catalog search, the
/// identify queue's own refusals — waits behind it. This pool has its own threads; a handler awaits the result
/// and leaves its cooperative thread free meanwhile. How many jobs may wait for it is bounded by the callers
/// (``IdentifyQueue`` for identifications, the log-in throttle for passwords).
public final class WorkPool: Sendable {
    /// The pool the live server uses: one thread per core, at least two, started on first use.
    public static let shared = WorkPool(threads: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let pool: NIOThreadPool

    /// Creates and starts a pool with `threads` threads.
    public init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
    }

    /// Runs `work` on one of the pool's threads and returns its result.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        // Pool threads do not inherit task-local values: the household the caller acts for goes along explicitly, so
        // store reads made on the pool stay in it.
        guard let scope = HouseholdScope.current else { return try await pool.runIfActive(work) }
        return try await pool.runIfActive { try HouseholdScope.$current.withValue(scope) { try work() } }
    }
}

extension WorkPool: HeavyWorkRunner {}
