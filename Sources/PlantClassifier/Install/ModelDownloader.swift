import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads a (large) checkpoint to a file, resuming a previous partial download with an HTTP Range
/// request, and reporting progress as bytes arrive.
public struct ModelDownloader: Sendable {
    /// Progress callback: bytes received so far (including a resumed part) and the total when known.
    public typealias Progress = @Sendable (_ received: Int64, _ total: Int64?) -> Void

    /// Where Zenodo publishes the official PlantNet-300K weights (record 4726653).
    public static func officialURL(for architecture: ResNetArchitecture) -> URL? {
        URL(string: "https://zenodo.org/records/4726653/files/\(architecture.rawValue)_weights_best_acc.tar?download=1")
    }

    private let timeout: TimeInterval

    /// - Parameter timeout: seconds without data before giving up.
    public init(timeout: TimeInterval = 60) {
        self.timeout = timeout
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
        var request = URLRequest(url: url, timeoutInterval: timeout)
        if existing > 0 { request.setValue("bytes=\(existing)-", forHTTPHeaderField: "Range") }

        let delegate = DownloadDelegate(url: url, part: part, offset: existing, progress: progress)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            delegate.start(continuation)
            session.dataTask(with: request).resume()
        }
        do {
            if fileManager.fileExists(atPath: destination.path) { try fileManager.removeItem(at: destination) }
            try fileManager.moveItem(at: part, to: destination)
        } catch {
            throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "cannot move the download into place")
        }
    }
}

/// Receives the response in chunks and appends them to the partial file.
private final class DownloadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Callbacks arrive on the session's serial delegate queue; the lock guards the hand-off to `start`.
    private let lock = NSLock()
    private let url: URL
    private let part: URL
    private let offset: Int64
    private let progress: ModelDownloader.Progress
    private var continuation: CheckedContinuation<Void, any Error>?
    private var handle: FileHandle?
    private var received: Int64 = 0
    private var total: Int64?
    private var failure: ClassifierError?

    init(url: URL, part: URL, offset: Int64, progress: @escaping ModelDownloader.Progress) {
        self.url = url
        self.part = part
        self.offset = offset
        self.progress = progress
    }

    func start(_ continuation: CheckedContinuation<Void, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let length = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        do {
            switch status {
            case 206 where offset > 0:
                let range = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Range") ?? ""
                guard range.hasPrefix("bytes \(offset)-") else {
                    throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "the server resumed at the wrong place (\(range))")
                }
                handle = try FileHandle(forWritingTo: part)
                try handle?.seekToEnd()
                received = offset
                total = length.map { $0 + offset }
            case 200:
                // A fresh start (no partial file, or the server ignored the Range header).
                _ = FileManager.default.createFile(atPath: part.path, contents: nil)
                handle = try FileHandle(forWritingTo: part)
                try handle?.truncate(atOffset: 0)
                received = 0
                total = length
            default:
                throw ClassifierError.downloadFailed(url: url.absoluteString, reason: "the server answered HTTP \(status)")
            }
            progress(received, total)
            completionHandler(.allow)
        } catch {
            failure = error as? ClassifierError
                ?? .downloadFailed(url: url.absoluteString, reason: "cannot write \(part.path)")
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil, let handle else { return }
        do {
            try handle.write(contentsOf: data)
            received += Int64(data.count)
            progress(received, total)
        } catch {
            failure = .downloadFailed(url: url.absoluteString, reason: "cannot write \(part.path) (disk full?)")
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        try? handle?.close()
        handle = nil
        var outcome = failure
        if outcome == nil, let error {
            outcome = .downloadFailed(
                url: url.absoluteString,
                reason: "\((error as NSError).localizedDescription); run the same command again to resume"
            )
        }
        if outcome == nil, let total, received != total {
            outcome = .downloadFailed(
                url: url.absoluteString, reason: "the connection ended after \(received) of \(total) bytes; run the same command again to resume"
            )
        }
        let continuation = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            defer { self.continuation = nil }
            return self.continuation
        }
        if let outcome { continuation?.resume(throwing: outcome) } else { continuation?.resume() }
    }
}
