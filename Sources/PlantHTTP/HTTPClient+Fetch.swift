import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

extension HTTPClient {
    /// Sends `request` (with `upload` as its body, if given) and reads its whole answer, giving up when nothing moves
    /// for `timeout`: no bytes of the upload sent, no answer, no bytes of the answer. (Like URLSession's request
    /// time-out, a slow but steady upload of large photos is not cut off, and a server that holds the answer is.)
    ///
    /// Progress is recorded on the client's event loop as it happens, so a busy task pool that resumes this call late
    /// never makes a prompt answer look like a time-out.
    /// - Parameters:
    ///   - request: the address, method and headers (its body is not used).
    ///   - upload: the body, sent in chunks so its progress counts.
    ///   - timeout: the longest time without progress; then it throws `HTTPClientError.deadlineExceeded`.
    ///   - limit: the most body bytes accepted; a longer body throws ``HTTPFailure/tooLarge``.
    /// - Throws: the client's errors; ``HTTPFailure/init(_:)`` sorts them into what a caller can act on.
    public func fetch(
        _ request: HTTPClientRequest, uploading upload: Data? = nil, timeout: Duration, limit: Int
    ) async throws -> HTTPAnswer {
        let sending = try HTTPClient.Request(
            url: request.url, method: request.method, headers: request.headers, body: upload.map(Self.chunked)
        )
        let receiver = AnswerReceiver(limit: limit)
        let task = execute(request: sending, delegate: receiver, deadline: nil)
        return try await withThrowingTaskGroup(of: HTTPAnswer?.self) { group in
            group.addTask {
                let answer = try await withTaskCancellationHandler { try await task.get() } onCancel: { task.cancel() }
                // Resumed late (a busy pool) is fine; an answer that really stalled longer than allowed is not.
                guard receiver.progress.longestPause <= timeout else { throw HTTPClientError.deadlineExceeded }
                return answer
            }
            group.addTask {
                // Sleeps (no CPU) until the time-out would fall due, then looks whether anything moved meanwhile. Once
                // the answer is complete it only waits for it (this task may run late when the pool is busy).
                var due = receiver.progress.last + timeout
                while true {
                    try await _Concurrency.Task.sleep(until: due, clock: .continuous)
                    let progress = receiver.progress
                    if progress.finished {
                        guard progress.longestPause <= timeout else { throw HTTPClientError.deadlineExceeded }
                        return try await task.get()
                    }
                    let next = progress.last + timeout
                    if next <= due {
                        task.cancel()
                        throw HTTPClientError.deadlineExceeded
                    }
                    due = next
                }
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next(), let answer else { throw HTTPClientError.cancelled }
            return answer
        }
    }

    /// `data` as a body written in chunks of 64 KiB, each written chunk reported to the delegate as progress.
    private static func chunked(_ data: Data) -> Body {
        let chunkSize = 65_536
        return .stream(contentLength: Int64(data.count)) { writer in
            @Sendable func write(from offset: Int) -> EventLoopFuture<Void> {
                let end = Swift.min(offset + chunkSize, data.count)
                let written = writer.write(.byteBuffer(ByteBuffer(bytes: data[(data.startIndex + offset)..<(data.startIndex + end)])))
                guard end < data.count else { return written }
                return written.flatMap { write(from: end) }
            }
            return write(from: 0)
        }
    }
}

/// Collects an answer for ``HTTPClient/fetch(_:uploading:timeout:limit:)``. The client calls it on one event loop, one
/// callback at a time; the body is read only after the task has finished. Only the time of the last progress is read
/// meanwhile (by the watchdog), under its lock.
private final class AnswerReceiver: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = HTTPAnswer

    private let limit: Int
    private var head: HTTPResponseHead?
    private var body = Data()
    private let state = Mutex(Progress(last: .now, longestPause: .zero, finished: false))

    /// How the exchange moves, as the event loop saw it.
    struct Progress {
        /// When it last moved (or started).
        var last: ContinuousClock.Instant
        /// The longest time it went without moving, up to `last` (or the end).
        var longestPause: Duration
        /// Whether it has ended (answered or failed).
        var finished: Bool
    }

    init(limit: Int) {
        self.limit = limit
    }

    var progress: Progress { state.withLock { $0 } }

    private func moved(finishing: Bool = false) {
        let now = ContinuousClock.now
        state.withLock { progress in
            progress.longestPause = max(progress.longestPause, now - progress.last)
            progress.last = now
            if finishing { progress.finished = true }
        }
    }

    func didReceiveError(task: HTTPClient.Task<HTTPAnswer>, _ error: any Error) {
        moved(finishing: true)
    }

    func didSendRequestPart(task: HTTPClient.Task<HTTPAnswer>, _ part: IOData) {
        moved()
    }

    func didReceiveHead(task: HTTPClient.Task<HTTPAnswer>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        moved()
        self.head = head
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HTTPAnswer>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        moved()
        guard body.count + buffer.readableBytes <= limit else { return task.eventLoop.makeFailedFuture(HTTPFailure.tooLarge) }
        body.append(contentsOf: buffer.readableBytesView)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<HTTPAnswer>) throws -> HTTPAnswer {
        moved(finishing: true)
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return HTTPAnswer(status: Int(head.status.code), headers: head.headers, body: body)
    }
}
