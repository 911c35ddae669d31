import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PlantHTTP
import Synchronization

/// Downloads a (large) checkpoint to a file, resuming a previous partial download with an HTTP Range
/// request, and reporting progress as bytes arrive. The body streams to the file chunk by chunk; it is never
/// held in memory whole.
public struct ModelDownloader: Sendable {
    /// Progress callback: bytes received so far (including a resumed part) and the total when known.
    public typealias Progress = @Sendable (_ received: Int64, _ total: Int64?) -> Void

    /// The largest file accepted (2 GiB): the PlantNet-300K checkpoints are 45 to 360 MB; a larger answer is refused
    /// as soon as its length is known.
    public static let maximumSize: Int64 = 2 << 30

    /// Where the bytes of a download to `destination` are kept until it is complete (a later call resumes from it).
    public static func partialFile(for destination: URL) -> URL {
        destination.appendingPathExtension("part")
    }

    /// How many bytes of a download to `destination` are kept on disk now (0 when none).
    public static func bytesKept(for destination: URL) -> Int64 {
        size(of: partialFile(for: destination))
    }

    private static func size(of file: URL) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
    }

    private let timeout: Duration
    private let http: HTTPClient

    /// - Parameters:
    ///   - timeout: seconds without data (or without an answer's head) before giving up.
    ///   - http: the HTTP client the download goes through; it must not follow redirects itself (the downloader
    ///     follows up to 5, each only to https).
    public init(timeout: TimeInterval = 60, http: HTTPClient = OutgoingHTTP.downloadClient) {
        self.timeout = .milliseconds(Int64((max(timeout, 0.001) * 1000).rounded()))
        self.http = http
    }

    /// Downloads `url` to `destination`. The bytes first go to `destination` + `.part`, which a later
    /// call resumes from; the final file appears only when complete.
    ///
    /// Only https is downloaded (plain http only from a loopback host), redirects are followed to https targets only,
    /// a web page (`text/html`) or a file larger than `maximumSize` (or of another length than `expectedSize`) is
    /// refused as soon as the answer's head arrives.
    public func download(
        from url: URL, to destination: URL, expectedSize: Int64? = nil, maximumSize: Int64 = ModelDownloader.maximumSize,
        progress: @escaping Progress = { _, _ in }
    ) async throws {
        try ModelSource.checkAllowed(url)
        let part = Self.partialFile(for: destination)
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "cannot create \(destination.deletingLastPathComponent().path)")
        }
        var current = url
        var hops = 0
        while true {
            let limits = DownloadSink.Limits(expected: expectedSize, maximum: maximumSize)
            switch try await fetch(current, part: part, limits: limits, progress: progress) {
            case .complete:
                break
            case .redirect(let target):
                hops += 1
                guard hops <= 5 else { throw failure(url, "more than 5 redirects") }
                guard target.scheme?.lowercased() == "https", target.host != nil else {
                    throw failure(url, "the server redirects to \(target.absoluteString); only https targets are followed")
                }
                current = target
                continue
            }
            break
        }
        do {
            let fileManager = FileManager.default
            if fileManager.fileExists(atPath: destination.path) { try fileManager.removeItem(at: destination) }
            try fileManager.moveItem(at: part, to: destination)
        } catch {
            throw failure(url, "cannot move the download into place")
        }
    }

    private enum Outcome {
        case complete
        case redirect(URL)
    }

    /// One request: appends to (or restarts) the partial file, or reports where the server redirects.
    private func fetch(_ url: URL, part: URL, limits: DownloadSink.Limits, progress: @escaping Progress) async throws -> Outcome {
        let existing = Self.size(of: part)
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, headers: existing > 0 ? ["Range": "bytes=\(existing)-"] : [:])
        } catch {
            throw failure(url, "\(HTTPFailure(error))")
        }
        // Each chunk is written to the file as it is read, before the next is read: bytes received before a dropped
        // connection are kept for the resume.
        let sink = DownloadSink(url: url, part: part, offset: existing, limits: limits, progress: progress)
        let task = http.execute(request: request, delegate: sink, deadline: nil)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await withTaskCancellationHandler { try await task.get() } onCancel: { task.cancel() }
                }
                let idleLimit = timeout
                group.addTask {
                    // A watchdog that sleeps between looks: a stalled server ends the download, not the process. Once
                    // the answer is complete it only waits for it (this task may run late when the pool is busy).
                    while true {
                        try await Task.sleep(for: min(idleLimit, .seconds(1)))
                        let activity = sink.activity
                        if activity.finished { return try await task.get() }
                        if ContinuousClock.now - activity.last > idleLimit {
                            task.cancel()
                            throw HTTPClientError.readTimeout
                        }
                    }
                }
                defer { group.cancelAll() }
                _ = try await group.next()
            }
        } catch {
            try? sink.close()
            if let target = sink.redirect { return .redirect(target) }
            if let problem = sink.problem ?? (error as? ClassifierError) { throw problem }
            if error is CancellationError { throw error }
            throw failure(url, "\(HTTPFailure(error)); run the same command again to resume")
        }
        do {
            try sink.close()
        } catch {
            throw failure(url, "cannot write \(part.path) (disk full?)")
        }
        if let total = sink.total, sink.received != total {
            throw failure(url, "the connection ended after \(sink.received) of \(total) bytes; run the same command again to resume")
        }
        return .complete
    }

    private func failure(_ url: URL, _ reason: String) -> ClassifierError {
        .downloadFailed(url: url.absoluteString, reason: reason)
    }
}

/// Receives the answer for ``ModelDownloader`` and writes it to the partial file. The client calls it on one event
/// loop, one callback at a time and in order, and waits for each chunk's write before reading on; the download reads
/// its results only after the client's task has finished. Only the time of the last activity is read meanwhile (by
/// the watchdog), under its lock.
private final class DownloadSink: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    /// What the answer must fit.
    struct Limits {
        /// The whole file's length when known in advance (a published size).
        var expected: Int64?
        var maximum: Int64
    }

    private let url: URL
    private let part: URL
    private let offset: Int64
    private let limits: Limits
    private let progress: ModelDownloader.Progress
    private var handle: FileHandle?
    private(set) var received: Int64 = 0
    private(set) var total: Int64?
    /// Why the download was refused (wrong status, resumed at the wrong place, the file not writable).
    private(set) var problem: ClassifierError?
    /// Where the server redirects (the request then ends without a body).
    private(set) var redirect: URL?
    private let state = Mutex((last: ContinuousClock.now, finished: false))

    init(url: URL, part: URL, offset: Int64, limits: Limits, progress: @escaping ModelDownloader.Progress) {
        self.url = url
        self.part = part
        self.offset = offset
        self.limits = limits
        self.progress = progress
    }

    /// When the head or the last bytes arrived (or the download started), and whether the exchange has ended.
    var activity: (last: ContinuousClock.Instant, finished: Bool) { state.withLock { $0 } }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        state.withLock { $0.finished = true }
    }

    private func refuse(_ reason: String) -> ClassifierError {
        .downloadFailed(url: url.absoluteString, reason: reason)
    }

    private static func size(_ bytes: Int64) -> String {
        bytes >= 1 << 30 ? String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLock { $0.last = .now }
        let length = head.headers.first(name: "Content-Length").flatMap { Int64($0) }
        do {
            let resuming: Bool
            switch head.status.code {
            case 301, 302, 303, 307, 308:
                guard let location = head.headers.first(name: "Location"), let target = URL(string: location, relativeTo: url) else {
                    throw refuse("the server answered HTTP \(head.status.code) without a Location")
                }
                redirect = target.absoluteURL
                throw refuse("redirected")
            case 206 where offset > 0:
                // Appended to when the server resumed where asked.
                let range = head.headers.first(name: "Content-Range") ?? ""
                guard range.hasPrefix("bytes \(offset)-") else { throw refuse("the server resumed at the wrong place (\(range))") }
                resuming = true
            case 200:
                // A fresh start (no partial file, or the server ignored the Range header).
                resuming = false
            case 416 where offset > 0:
                // The partial file is longer than the file the server has now: it belongs to another file.
                try? FileManager.default.removeItem(at: part)
                throw refuse("the partial download does not fit the file on the server; it was discarded, run the same command again")
            default:
                throw refuse("the server answered HTTP \(head.status.code)")
            }
            // Refused before a byte is written: a web page, a file too large or of another length than published.
            let type = head.headers.first(name: "Content-Type")?.lowercased() ?? ""
            if type.hasPrefix("text/html") {
                throw refuse("the server sent a web page (\(type)), not a checkpoint: check the URL")
            }
            let start = resuming ? offset : 0
            total = length.map { $0 + start }
            if let total {
                if total > limits.maximum {
                    throw refuse("the file is \(Self.size(total)); a checkpoint is at most \(Self.size(limits.maximum)), so it was not downloaded")
                }
                if let expected = limits.expected, total != expected {
                    throw refuse("the server sends \(total) bytes but the record publishes \(expected): not the published file")
                }
            }
            if !resuming { _ = FileManager.default.createFile(atPath: part.path, contents: nil) }
            let file = try FileHandle(forWritingTo: part)
            if resuming { try file.seekToEnd() } else { try file.truncate(atOffset: 0) }
            handle = file
            received = start
        } catch {
            let refusal = error as? ClassifierError ?? refuse("cannot write \(part.path)")
            if redirect == nil { problem = refusal }
            return task.eventLoop.makeFailedFuture(refusal)
        }
        progress(received, total)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        state.withLock { $0.last = .now }
        guard let handle else { return task.eventLoop.makeSucceededVoidFuture() }
        if received + Int64(buffer.readableBytes) > (total ?? limits.maximum) {
            let refusal = refuse(
                total == nil
                    ? "the file is larger than \(Self.size(limits.maximum)), the most a checkpoint can be"
                    : "the server sent more bytes than it announced"
            )
            problem = refusal
            return task.eventLoop.makeFailedFuture(refusal)
        }
        do {
            try handle.write(contentsOf: Data(buffer.readableBytesView))
        } catch {
            let refusal = refuse("cannot write \(part.path) (disk full?)")
            problem = refusal
            return task.eventLoop.makeFailedFuture(refusal)
        }
        received += Int64(buffer.readableBytes)
        progress(received, total)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        state.withLock { $0.finished = true }
    }

    /// Closes the partial file.
    func close() throws {
        defer { handle = nil }
        try handle?.close()
    }
}
