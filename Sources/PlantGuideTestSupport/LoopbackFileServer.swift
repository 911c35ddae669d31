import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 file server on 127.0.0.1 for download tests: serves fixed files, honours
/// `Range: bytes=N-`, records what it was asked, and can cut a response short to simulate a dropped
/// connection, send slowly, redirect, announce a wrong length or another content type. One connection at a time,
/// closed after each response.
public final class LoopbackFileServer: @unchecked Sendable {
    /// One request as received.
    public struct Request: Sendable, Hashable {
        public var path: String
        /// The `Range` header, if any.
        public var range: String?
    }

    /// The port the server listens on.
    public let port: UInt16
    private let files: [String: Data]
    private let socket: Int32
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var cutsLeft: Int
    private let cutAfter: Int
    private let options: Options
    private var thread: Thread?
    private var stopped = false
    private var paused = false
    private var pausedOnce = false
    private let resumption = DispatchSemaphore(value: 0)

    /// Starts serving `files` (URL path → bytes). The first `dropConnections` responses stop after
    /// `cutAfter` body bytes although the headers promise the whole file.
    /// How answers differ from a plain file server's.
    public struct Options: Sendable {
        /// Path → the `Location` of a 302 answer.
        public var redirects: [String: String] = [:]
        /// Path → the `Content-Type` sent (default `application/octet-stream`).
        public var contentTypes: [String: String] = [:]
        /// Path → the `Content-Length` announced for the whole file instead of its real length.
        public var announcedLengths: [String: Int] = [:]
        /// Sends bodies at about this rate, in 16 KiB steps; `nil` sends at once.
        public var bytesPerSecond: Int?
        /// The first whole-file response (one without `Range`) longer than this stops after this many body bytes and waits until
        /// ``LoopbackFileServer/proceed()`` (or ``LoopbackFileServer/stop()``): a download that is certainly still
        /// running, however slow the machine, for tests that stop one midway.
        public var pauseAfter: Int?

        public init(
            redirects: [String: String] = [:], contentTypes: [String: String] = [:], announcedLengths: [String: Int] = [:],
            bytesPerSecond: Int? = nil, pauseAfter: Int? = nil
        ) {
            self.redirects = redirects
            self.contentTypes = contentTypes
            self.announcedLengths = announcedLengths
            self.bytesPerSecond = bytesPerSecond
            self.pauseAfter = pauseAfter
        }
    }

    public init(files: [String: Data], dropConnections: Int = 0, cutAfter: Int = 0, options: Options = Options()) throws {
        self.files = files
        self.options = options
        cutsLeft = dropConnections
        self.cutAfter = cutAfter
        do throws(LoopbackSocketError) {
            (socket, port) = try bindLoopback(reuseAddress: true, backlog: 8)
        } catch {
            throw ServerError.socket(error.operation)
        }
        let thread = Thread { [self] in acceptLoop() }
        self.thread = thread
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The requests received so far.
    public var requests: [Request] { lock.withLock { recorded } }

    /// Whether the response held by ``Options/pauseAfter`` is waiting now.
    public var isPaused: Bool { lock.withLock { paused } }

    /// Lets the response held by ``Options/pauseAfter`` go on.
    public func proceed() {
        resumption.signal()
    }

    /// Stops accepting connections (and lets a paused response go on, so its thread ends).
    public func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        resumption.signal()
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private func acceptLoop() {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var received = Data()
        while !received.contains(Data("\r\n\r\n".utf8)), received.count < 65_536 {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
        }
        let lines = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let path = parts.count > 1 ? String(parts[1]) : "/"
        let range = lines.dropFirst().first { $0.lowercased().hasPrefix("range:") }
            .map { String($0.dropFirst("range:".count)).trimmingCharacters(in: .whitespaces) }
        let cut: Bool = lock.withLock {
            recorded.append(Request(path: path, range: range))
            guard cutsLeft > 0 else { return false }
            cutsLeft -= 1
            return true
        }
        if let location = options.redirects[path] {
            transmit(client, Data("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        guard let file = files[path] else {
            transmit(client, Data("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found".utf8))
            return
        }
        var start = 0
        var head = "HTTP/1.1 200 OK\r\n"
        if let range, range.hasPrefix("bytes="), let from = Int(range.dropFirst(6).prefix { $0.isNumber }) {
            guard from < file.count else {
                transmit(client, Data("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            start = from
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(from)-\(file.count - 1)/\(file.count)\r\n"
        }
        let body = file[(file.startIndex + start)...]
        let length = options.announcedLengths[path].map { $0 - start } ?? body.count
        let type = options.contentTypes[path] ?? "application/octet-stream"
        head += "Content-Length: \(length)\r\nContent-Type: \(type)\r\nConnection: close\r\n\r\n"
        transmit(client, Data(head.utf8))
        var sent = cut ? Data(body.prefix(cutAfter)) : Data(body)
        let pause: Int? = lock.withLock {
            guard range == nil, let after = options.pauseAfter, after < sent.count, !pausedOnce else { return nil }
            pausedOnce = true
            return after
        }
        if let pause {
            guard transmit(client, sent.prefix(pause)) else { return }
            lock.withLock { paused = true }
            resumption.wait()
            lock.withLock { paused = false }
            sent = Data(sent.dropFirst(pause))
        }
        guard let rate = options.bytesPerSecond, rate > 0 else {
            transmit(client, sent)
            return
        }
        let step = 16_384
        var offset = 0
        while offset < sent.count {
            let end = min(sent.count, offset + step)
            guard transmit(client, sent.subdata(in: offset..<end)) else { return }
            offset = end
            usleep(UInt32(min(1_000_000, Double(step) / Double(rate) * 1_000_000)))
        }
    }

    @discardableResult
    private func transmit(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                guard let base = bytes.baseAddress else { return false }
                // MSG_NOSIGNAL: a client that hangs up must not kill the test process with SIGPIPE.
                #if canImport(Glibc)
                let written = Glibc.send(client, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let written = Darwin.send(client, base + offset, bytes.count - offset, 0)
                #endif
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Why the server could not start.
    public enum ServerError: Error {
        case socket(String)
    }
}
