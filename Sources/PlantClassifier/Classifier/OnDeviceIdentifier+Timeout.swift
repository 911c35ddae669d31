import Dispatch
import Foundation
import PlantGuideCore
import Synchronization

extension OnDeviceIdentifier {
    /// How long one on-device identification may take before it is given up, unless configured otherwise.
    public static let defaultTimeout: Duration = .seconds(10)

    /// The environment variable that sets the server's limit, in seconds (e.g. `PLANTGUIDE_ON_DEVICE_TIMEOUT=20`).
    public static let timeoutEnvironmentVariable = "PLANTGUIDE_ON_DEVICE_TIMEOUT"

    /// The limit `environment` sets: ``defaultTimeout`` when the variable is unset or empty, `nil` when it is not
    /// a number of seconds above 0 and at most 3600 (`plantguide serve` refuses to start then).
    public static func timeout(environment: [String: String]) -> Duration? {
        guard let text = environment[timeoutEnvironmentVariable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return defaultTimeout
        }
        guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { return nil }
        return .seconds(seconds)
    }

    /// This identifier, failing with ``ClassifierError/timedOut(limit:)`` when an identification takes longer
    /// than `limit`, so a caller (and the hybrid strategies, which then ask Pl@ntNet) never waits longer.
    ///
    /// A forward pass cannot be interrupted: work that overruns finishes in the background and its answer is
    /// dropped. The work runs on a Dispatch queue of its own, not on Swift's cooperative pool (two threads
    /// here, which other synchronous work may hold: the time spent waiting for one is not the model's), and the
    /// deadline is kept on another, so it fires whatever the shared threads are doing.
    public func limited(to limit: Duration) -> OnDeviceIdentifier {
        // An identifier that hands back embeddings keeps doing so, under the same limit.
        if let withEmbeddings = identifyWithEmbeddings {
            return .limited(to: limit, identifyWithEmbeddings: { photos, top, started in
                started()
                return try await withEmbeddings(photos, top)
            })
        }
        let identify = self.identify
        return .limited(to: limit) { photos, top, started in
            started()
            return try await identify(photos, top)
        }
    }

    /// An identifier over `identify`, limited like ``limited(to:)`` but counting from when `identify` calls
    /// `started` (at most once has effect): time spent waiting for a worker thread, behind other people's photos,
    /// is not the model's. An `identify` that never calls it is not limited.
    public static func limited(
        to limit: Duration,
        identify: @escaping @Sendable (_ photos: [Data], _ top: Int, _ started: @escaping @Sendable () -> Void) async throws
            -> Identification
    ) -> OnDeviceIdentifier {
        OnDeviceIdentifier { photos, top in
            try await FirstOutcome<Identification>.race(limit: limit) { started in try await identify(photos, top, started) }
        }
    }
}

/// Where deadlines fire: a serial queue gets a thread of its own when the shared ones are all busy.
extension OnDeviceIdentifier {
    /// ``limited(to:identify:)`` for an identifier that hands back the photos' embeddings with its answer.
    public static func limited(
        to limit: Duration,
        identifyWithEmbeddings: @escaping @Sendable (_ photos: [Data], _ top: Int, _ started: @escaping @Sendable () -> Void)
            async throws -> EmbeddedIdentification
    ) -> OnDeviceIdentifier {
        OnDeviceIdentifier(identifyWithEmbeddings: { photos, top in
            try await FirstOutcome<EmbeddedIdentification>.race(limit: limit) { started in
                try await identifyWithEmbeddings(photos, top, started)
            }
        })
    }
}

private let deadlines = DispatchQueue(label: "plantguide.on-device-deadlines")

/// Runs a task's jobs on a serial Dispatch queue made for it, so synchronous work in the task holds that queue's
/// thread instead of one of the cooperative pool's.
private final class OwnQueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "plantguide.on-device-identification")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Hands the caller whichever comes first: the work's outcome, the deadline, or the caller's cancellation.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private enum State {
        /// Waiting; the continuation is `nil` only until ``start(_:)`` sets it.
        case waiting(CheckedContinuation<Value, any Error>?)
        /// The caller was cancelled before the continuation existed.
        case cancelled
        case finished
    }

    private let state = Mutex<State>(.waiting(nil))
    private let clockStarted = Mutex(false)

    /// Runs `work` and returns its value, or throws ``ClassifierError/timedOut(limit:)`` once `limit` has passed
    /// since `work` called the closure it is given.
    static func race(
        limit: Duration, _ work: @escaping @Sendable (_ startClock: @escaping @Sendable () -> Void) async throws -> Value
    ) async throws -> Value {
        let outcome = FirstOutcome()
        let startClock: @Sendable () -> Void = {
            guard outcome.clockStarted.withLock({ started in defer { started = true }; return !started }) else { return }
            deadlines.asyncAfter(deadline: .now() + limit.inSeconds) {
                outcome.finish(.failure(ClassifierError.timedOut(limit: limit)))
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.start(continuation)
                Task(executorPreference: OwnQueueExecutor()) {
                    do { outcome.finish(.success(try await work(startClock))) } catch { outcome.finish(.failure(error)) }
                }
            }
        } onCancel: {
            outcome.cancel()
        }
    }

    private func start(_ continuation: CheckedContinuation<Value, any Error>) {
        let wasCancelled = state.withLock { state in
            if case .cancelled = state {
                state = .finished
                return true
            }
            state = .waiting(continuation)
            return false
        }
        if wasCancelled { continuation.resume(throwing: CancellationError()) }
    }

    /// Resumes the caller with `result` unless something came first; returns whether it did.
    @discardableResult
    private func finish(_ result: Result<Value, any Error>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard case .waiting(let continuation?) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume(with: result)
        return continuation != nil
    }

    private func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .waiting(let continuation?):
                state = .finished
                return continuation
            case .waiting(nil):
                state = .cancelled
                return nil
            case .cancelled, .finished:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}
