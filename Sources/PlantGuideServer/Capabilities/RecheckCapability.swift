import Foundation
import PlantGuideCore
import PlantStore
import Synchronization

/// The re-check queue as the web app uses it: queue an answer the device gave, send the queue (by itself in the
/// background, or now from Settings), settle suggestions, and re-score saved identifications with the loaded model;
/// and, in the same background rounds, keep the collection's photo embeddings current with the loaded model.
public struct RecheckCapability: Sendable {
    /// Files an identification not saved to a plant and queues it with its photos (bytes, organ); returns its id.
    public var queue: @Sendable (_ identification: Identification, _ photos: [(data: Data, organ: String)], _ reason: RecheckReason)
        async throws -> Int64
    /// Sends the queue once; `nil` when Pl@ntNet is not configured.
    public var drain: @Sendable () async throws -> RecheckRun?
    /// Counts by state and open suggestions.
    public var summary: @Sendable () async throws -> RecheckSummary
    /// Open suggestions of one plant (by its id as pages show it).
    public var suggestions: @Sendable (_ plantID: String) async throws -> [SpeciesSuggestion]
    /// Accepts (`true`) or dismisses a suggestion of a plant.
    public var settle: @Sendable (_ plantID: String, _ suggestionID: Int64, _ accept: Bool) async throws -> SpeciesSuggestion
    /// Re-scores saved identifications with the loaded on-device model; `nil` when none is loaded.
    public var rescore: @Sendable () async throws -> RescoreRun?
    /// The households whose queues and photos the background rounds go through, each in its own scope (every household
    /// of the store in the live server; household 1 alone by default).
    public var households: @Sendable () async throws -> [Int64] = { [HouseholdScope.home.household] }
    /// Embeds up to a round's worth of the collection's photos that have no embedding of the loaded model (added
    /// before a model was installed, imported, or indexed by a model no longer the default); returns how many.
    public var reindex: @Sendable () async throws -> Int = { 0 }
    /// When the background service sends the queue.
    public var interval: Duration
    /// Asks the background service to send the queue now (e.g. after Pl@ntNet was found reachable again).
    public let wake: RecheckWake

    /// Creates the capability.
    public init(
        queue: @escaping @Sendable (Identification, [(data: Data, organ: String)], RecheckReason) async throws -> Int64,
        drain: @escaping @Sendable () async throws -> RecheckRun?,
        summary: @escaping @Sendable () async throws -> RecheckSummary,
        suggestions: @escaping @Sendable (String) async throws -> [SpeciesSuggestion],
        settle: @escaping @Sendable (String, Int64, Bool) async throws -> SpeciesSuggestion,
        rescore: @escaping @Sendable () async throws -> RescoreRun?,
        interval: Duration = .seconds(60), wake: RecheckWake = RecheckWake()
    ) {
        self.queue = queue
        self.drain = drain
        self.summary = summary
        self.suggestions = suggestions
        self.settle = settle
        self.rescore = rescore
        self.interval = interval
        self.wake = wake
    }
}

/// What wakes the background re-check service before its interval is out. The service waits on it (no CPU while
/// idle): ``wake()`` ends the wait at once, or, when nobody waits, makes the next wait end at once. One waiter at a
/// time (the one service); a second concurrent wait would replace the first's.
public final class RecheckWake: Sendable {
    private struct State {
        var woken = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Creates a lowered flag.
    public init() {}

    /// Asks for a round soon.
    public func wake() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.woken = true
                return CheckedContinuation<Void, Never>?.none
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Whether a round was asked for since the last call; lowers the flag.
    func take() -> Bool { state.withLock { state in defer { state.woken = false }; return state.woken } }

    /// Waits until woken or until `deadline`, whichever comes first (or the task is cancelled).
    func wait(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            group.addTask { await self.woken() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns when woken (at once when woken since the last wait) or cancelled.
    private func woken() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.woken || Task.isCancelled {
                        state.woken = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
