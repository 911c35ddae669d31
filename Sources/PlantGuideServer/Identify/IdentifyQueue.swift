import Synchronization

/// Bounds identification work: at most `maximumConcurrent` jobs run at once and at most
/// `maximumQueued` more wait. A request beyond that is refused at once with ``ServerError/overloaded``
/// before its upload is read, so memory stays bounded however many clients send photos.
public final class IdentifyQueue: Sendable {
    /// Jobs that run at once.
    public let maximumConcurrent: Int
    /// Jobs that may wait for a turn.
    public let maximumQueued: Int
    /// Seconds suggested to refused clients.
    public let retryAfter: Int

    private struct State {
        var admitted = 0
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Creates a queue.
    public init(maximumConcurrent: Int, maximumQueued: Int, retryAfter: Int = 5) {
        self.maximumConcurrent = max(1, maximumConcurrent)
        self.maximumQueued = max(0, maximumQueued)
        self.retryAfter = retryAfter
    }

    /// Counts of admitted (running or waiting) and running jobs.
    public var load: (admitted: Int, running: Int) {
        state.withLock { ($0.admitted, $0.running) }
    }

    /// Runs `body` (which reads the upload and then calls ``run(_:)``) if there is room, else throws.
    public func admit<T>(_ body: () async throws -> T) async throws -> T {
        let capacity = maximumConcurrent + maximumQueued
        let admitted = state.withLock { state in
            guard state.admitted < capacity else { return false }
            state.admitted += 1
            return true
        }
        guard admitted else { throw ServerError.overloaded(retryAfter: retryAfter) }
        defer { state.withLock { $0.admitted -= 1 } }
        return try await body()
    }

    /// Waits for a turn, then runs `work`.
    public func run<T>(_ work: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let startNow = state.withLock { state in
                if state.running < maximumConcurrent {
                    state.running += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if startNow { continuation.resume() }
        }
        defer {
            // Hand the slot straight to the next waiter, or give it back.
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.running -= 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await work()
    }
}
