import Foundation
import Hummingbird
import ServiceLifecycle
import Synchronization

/// Work a server repeats to stay in step with other replicas on the same store: settings another replica saved are
/// put in use, expired uploads forgotten. It runs one interval after a request, never while the server is idle
/// (``RequestRefresh``).
public struct ServerRefresh: Sendable {
    /// How long after a request a round runs (and so how stale settings saved elsewhere may be while people use it).
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

/// A task done on some of the refresh rounds only: due on the first round, then once `interval` has passed since it
/// was last due.
final class RefreshCadence: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(every interval: Duration) {
        self.interval = interval
    }

    /// Whether the task is due now; when it is, the next one is due `interval` from now.
    func isDue() -> Bool {
        last.withLock { last in
            guard last.map({ ContinuousClock.now - $0 >= interval }) ?? true else { return false }
            last = ContinuousClock.now
            return true
        }
    }
}

/// Runs a ``ServerRefresh``'s rounds while requests come: a request wakes it, it waits one interval and runs a round
/// in the background, and then waits for the next request. An idle server does no work at all (a plain timer would
/// wake it every few seconds); while people use it, settings another replica saved are in use within an interval.
final class RequestRefresh: Service, Sendable {
    let refresh: ServerRefresh
    private let requests: AsyncStream<Void>
    private let seen: AsyncStream<Void>.Continuation
    /// Whether a round is waiting to run: requests until it starts need no other.
    private let waiting = Atomic<Bool>(false)

    init(_ refresh: ServerRefresh) {
        self.refresh = refresh
        (requests, seen) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Called for every request; never waits.
    func requestSeen() {
        if !waiting.exchange(true, ordering: .acquiringAndReleasing) { seen.yield(()) }
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            for await _ in self.requests {
                try await Task.sleep(for: self.refresh.interval)
                // A request from now on may have missed what this round finds: it asks for another.
                self.waiting.store(false, ordering: .releasing)
                await self.refresh.run()
            }
        }
    }
}

/// The app's responder telling a ``RequestRefresh`` of each request.
struct RefreshingResponder<App: HTTPResponder>: HTTPResponder where App.Context == AppRequestContext {
    let app: App
    let refresh: RequestRefresh?

    func respond(to request: Request, context: AppRequestContext) async throws -> Response {
        refresh?.requestSeen()
        return try await app.respond(to: request, context: context)
    }
}
