import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP endpoint on 127.0.0.1 that keeps every request it receives (method, path, headers, body) and answers each
/// with the next status of a queue (then 200): a stand-in for an ntfy server or a webhook. One connection at a time.
public final class LoopbackReceiver: @unchecked Sendable {
    /// One request as received.
    public struct Request: Sendable, Hashable {
        public var method: String
        public var path: String
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: Data

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The port it listens on.
    public let port: UInt16
    private let socket: Int32
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var statuses: [Int]
    private var stopped = false

    /// Starts listening; `statuses` answer the first requests in turn, 200 the rest.
    public init(statuses: [Int] = []) throws {
        self.statuses = statuses
        do throws(LoopbackSocketError) {
            (socket, port) = try bindLoopback(reuseAddress: true, backlog: 8)
        } catch {
            throw error
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The requests received so far.
    public var requests: [Request] { lock.withLock { recorded } }

    /// Answers the next requests with these statuses (then 200).
    public func answer(_ next: [Int]) { lock.withLock { statuses = next } }

    /// Stops accepting connections.
    public func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
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
        let separator = Data("\r\n\r\n".utf8)
        while received.range(of: separator) == nil, received.count < 65_536 {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let end = received.range(of: separator) else { return }
        let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = head.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(received[end.upperBound...])
        let length = headers["content-length"].flatMap(Int.init) ?? 0
        while body.count < min(length, 1 << 20) {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { break }
            body.append(contentsOf: buffer[0..<count])
        }
        let status: Int = lock.withLock {
            recorded.append(Request(
                method: parts.first.map(String.init) ?? "", path: parts.count > 1 ? String(parts[1]) : "/", headers: headers,
                body: body
            ))
            return statuses.isEmpty ? 200 : statuses.removeFirst()
        }
        let answer = Data("HTTP/1.1 \(status) Status\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
        answer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            #if canImport(Glibc)
            _ = Glibc.send(client, base, bytes.count, Int32(MSG_NOSIGNAL))
            #else
            _ = Darwin.send(client, base, bytes.count, 0)
            #endif
        }
    }
}
