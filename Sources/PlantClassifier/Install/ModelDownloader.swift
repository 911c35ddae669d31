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

    /// Where Zenodo publishes the official PlantNet-300K weights (record 4726653).
    public static func officialURL(for architecture: ResNetArchitecture) -> URL? {
        URL(string: "https://zenodo.org/records/4726653/files/\(architecture.rawValue)_weights_best_acc.tar?download=1")
    }

    private let timeout: Duration
    private let http: HTTPClient

    /// - Parameters:
    ///   - timeout: seconds without data (or without an answer's head) before giving up.
    ///   - http: the HTTP client the download goes through.
    public init(timeout: TimeInterval = 60, http: HTTPClient = OutgoingHTTP.processClient) {
        self.timeout = .milliseconds(Int64((max(timeout, 0.001) * 1000).rounded()))
        self.http = http
    }

    /// Downloads `url` to `destination`. The bytes first go to `destination` + `.part`, which a later
    /// call resumes from; the final file appears only when complete.
    public func download(from url: URL, to destination: URL, progress: @escaping Progress = { _, _ in }) async throws {
        let part = destination.appendingPathExtension("part")
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "cannot create \(destination.deletingLastPathComponent().path)")
        }
        let existing = (try? fileManager.attributesOfItem(atPath: part.path)[.size] as? Int64) ?? 0
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, headers: existing > 0 ? ["Range": "bytes=\(existing)-"] : [:])
        } catch {
            throw failure(url, "\(HTTPFailure(error))")
        }
        // Each chunk is written to the file as it is read, before the next is read: bytes received before a dropped
        // connection are kept for the resume.
        let sink = DownloadSink(url: url.absoluteString, part: part, offset: existing, progress: progress)
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
            if let problem = sink.problem ?? (error as? ClassifierError) { throw problem }
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
        do {
            if fileManager.fileExists(atPath: destination.path) { try fileManager.removeItem(at: destination) }
            try fileManager.moveItem(at: part, to: destination)
        } catch {
            throw failure(url, "cannot move the download into place")
        }
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

    private let url: String
    private let part: URL
    private let offset: Int64
    private let progress: ModelDownloader.Progress
    private var handle: FileHandle?
    private(set) var received: Int64 = 0
    private(set) var total: Int64?
    /// Why the download was refused (wrong status, resumed at the wrong place, the file not writable).
    private(set) var problem: ClassifierError?
    private let state = Mutex((last: ContinuousClock.now, finished: false))

    init(url: String, part: URL, offset: Int64, progress: @escaping ModelDownloader.Progress) {
        self.url = url
        self.part = part
        self.offset = offset
        self.progress = progress
    }

    /// When the head or the last bytes arrived (or the download started), and whether the exchange has ended.
    var activity: (last: ContinuousClock.Instant, finished: Bool) { state.withLock { $0 } }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        state.withLock { $0.finished = true }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLock { $0.last = .now }
        let length = head.headers.first(name: "Content-Length").flatMap { Int64($0) }
        do {
            switch head.status.code {
            case 206 where offset > 0:
                // Appended to when the server resumed where asked.
                let range = head.headers.first(name: "Content-Range") ?? ""
                guard range.hasPrefix("bytes \(offset)-") else {
                    throw ClassifierError.downloadFailed(url: url, reason: "the server resumed at the wrong place (\(range))")
                }
                let file = try FileHandle(forWritingTo: part)
                try file.seekToEnd()
                handle = file
                received = offset
            case 200:
                // A fresh start (no partial file, or the server ignored the Range header).
                _ = FileManager.default.createFile(atPath: part.path, contents: nil)
                let file = try FileHandle(forWritingTo: part)
                try file.truncate(atOffset: 0)
                handle = file
                received = 0
            default:
                throw ClassifierError.downloadFailed(url: url, reason: "the server answered HTTP \(head.status.code)")
            }
        } catch {
            let refusal = error as? ClassifierError ?? .downloadFailed(url: url, reason: "cannot write \(part.path)")
            problem = refusal
            return task.eventLoop.makeFailedFuture(refusal)
        }
        total = length.map { $0 + received }
        progress(received, total)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        state.withLock { $0.last = .now }
        guard let handle else { return task.eventLoop.makeSucceededVoidFuture() }
        do {
            try handle.write(contentsOf: Data(buffer.readableBytesView))
        } catch {
            let refusal = ClassifierError.downloadFailed(url: url, reason: "cannot write \(part.path) (disk full?)")
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
