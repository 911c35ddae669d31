import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

extension HTTPClient {
    /// Sends `request` (with `upload` as its body, if given) and reads its whole answer, giving up when nothing moves
    /// for `timeout`: no bytes of the upload taken, no answer, no bytes of the answer. (Like URLSession's request
    /// time-out, a slow but steady upload of large photos is not cut off, and a server that holds the answer is.)
    /// - Parameters:
    ///   - upload: the body, sent in chunks so its progress counts as activity.
    ///   - timeout: the longest time without progress; then it throws `HTTPClientError.deadlineExceeded`.
    ///   - limit: the most body bytes accepted; a longer body throws ``HTTPFailure/tooLarge``.
    /// - Throws: the client's errors; ``HTTPFailure/init(_:)`` sorts them into what a caller can act on.
    public func fetch(
        _ request: HTTPClientRequest, uploading upload: Data? = nil, timeout: Duration, limit: Int
    ) async throws -> HTTPAnswer {
        let activity = Activity()
        var request = request
        if let upload {
            request.body = .stream(UploadChunks(data: upload, activity: activity), length: .known(Int64(upload.count)))
        }
        let sending = request
        return try await withThrowingTaskGroup(of: HTTPAnswer?.self) { group in
            group.addTask {
                // The client's own deadline would count the upload too; the watchdog below keeps time instead.
                let response = try await self.execute(sending, deadline: .distantFuture)
                activity.touch()
                var body = Data()
                for try await chunk in response.body {
                    activity.touch()
                    guard body.count + chunk.readableBytes <= limit else { throw HTTPFailure.tooLarge }
                    body.append(contentsOf: chunk.readableBytesView)
                }
                return HTTPAnswer(status: Int(response.status.code), headers: response.headers, body: body)
            }
            group.addTask {
                // Sleeps (no CPU) until the time-out would fall due, then looks whether anything moved meanwhile.
                var due = activity.last + timeout
                while true {
                    try await _Concurrency.Task.sleep(until: due, clock: .continuous)
                    let next = activity.last + timeout
                    if next <= due { throw HTTPClientError.deadlineExceeded }
                    due = next
                }
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next(), let answer else { throw HTTPClientError.cancelled }
            return answer
        }
    }
}

/// When an exchange last made progress.
final class Activity: Sendable {
    private let time = Mutex(ContinuousClock.now)

    /// The last progress (or the start).
    var last: ContinuousClock.Instant { time.withLock { $0 } }

    /// Records progress now.
    func touch() {
        time.withLock { $0 = .now }
    }
}

/// A body in chunks of 64 KiB, each taken by the client counted as progress.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let data: Data
    let activity: Activity
    static let chunkSize = 65_536

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let activity: Activity
        var offset: Int

        mutating func next() async -> ByteBuffer? {
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + UploadChunks.chunkSize, data.count)
            let start = data.startIndex + offset
            let chunk = ByteBuffer(bytes: data[start..<(data.startIndex + end)])
            offset = end
            activity.touch()
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(data: data, activity: activity, offset: 0)
    }
}
