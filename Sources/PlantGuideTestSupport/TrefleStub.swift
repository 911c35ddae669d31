import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stand-in for the Trefle API on 127.0.0.1: answers `/api/v1/plants/search` and
/// `/api/v1/species/{slug}` for a few known species, checks the token, and can be switched to
/// behave like an outage or to send garbage. One connection at a time, closed after each answer.
public final class TrefleStub: @unchecked Sendable {
    /// How the stub answers.
    public enum Behaviour: Sendable {
        case normal
        /// Every request gets `503 Service Unavailable`.
        case down
        /// Every request gets 200 with a body that is not JSON.
        case malformed
        /// Every request waits this many seconds before answering normally.
        case slow(Double)
    }

    /// The token the stub accepts.
    public static let token = "stub-trefle-token"

    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var current: Behaviour
    private var paths: [String] = []
    private var stopped = false

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { preconditionFailure("loopback URL") }
        return url
    }

    /// Paths (with query) of the requests received so far.
    public var requests: [String] { lock.withLock { paths } }

    /// Changes how later requests are answered.
    public var behaviour: Behaviour {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    /// Starts listening on a free port.
    public init(behaviour: Behaviour = .normal) throws {
        current = behaviour
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw StubError.socket }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ready else {
            close(fd)
            throw StubError.socket
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in serve() }.start()
    }

    deinit { stop() }

    /// Stops accepting connections.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if lock.withLock({ stopped }) { return }
                continue
            }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.containsHeaderEnd {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { return }
            received += buffer[0..<count]
            if received.count > 65_536 { return }
        }
        let head = String(decoding: received, as: UTF8.self)
        let target = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
        lock.withLock { paths.append(target) }
        let (status, body) = answer(target)
        let response = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return write(connection, base + sent, buffer.count - sent)
            }
            if count <= 0 { return }
            sent += count
        }
    }

    private func answer(_ target: String) -> (String, String) {
        switch behaviour {
        case .down: return ("503 Service Unavailable", #"{"error":true,"message":"down for maintenance"}"#)
        case .malformed: return ("200 OK", "<html>surprise</html>")
        case .slow(let seconds): Thread.sleep(forTimeInterval: seconds)
        case .normal: break
        }
        let components = URLComponents(string: target)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        guard query["token"] == Self.token else {
            return ("401 Unauthorized", #"{"error":true,"message":"Unauthenticated."}"#)
        }
        let path = components?.path ?? ""
        if path == "/api/v1/plants/search" {
            let wanted = (query["q"] ?? "").lowercased()
            let hits = Self.species.filter { $0.name.lowercased().hasPrefix(wanted) || wanted.hasPrefix($0.name.lowercased()) }
            let data = hits.map { #"{"id":1,"slug":"\#($0.slug)","scientific_name":"\#($0.name)","common_name":null}"# }
            return ("200 OK", #"{"data":[\#(data.joined(separator: ","))],"meta":{"total":\#(hits.count)}}"#)
        }
        if path.hasPrefix("/api/v1/species/"), let entry = Self.species.first(where: { path == "/api/v1/species/\($0.slug)" }) {
            return ("200 OK", #"{"data":{"slug":"\#(entry.slug)","scientific_name":"\#(entry.name)","growth":\#(entry.growth)}}"#)
        }
        return ("404 Not Found", #"{"error":true,"message":"Not found"}"#)
    }

    /// The species the stub knows, with Trefle-style `growth` objects.
    public static let species: [(name: String, slug: String, growth: String)] = [
        ("Monstera deliciosa", "monstera-deliciosa",
         #"{"light":6,"atmospheric_humidity":8,"minimum_temperature":{"deg_f":55,"deg_c":13},"maximum_temperature":{"deg_f":95,"deg_c":35}}"#),
        ("Mammillaria elongata", "mammillaria-elongata",
         #"{"light":9,"atmospheric_humidity":2,"minimum_temperature":{"deg_c":5},"maximum_temperature":{"deg_c":38}}"#),
        ("Nephrolepis exaltata", "nephrolepis-exaltata", #"{"light":null,"atmospheric_humidity":null}"#),
    ]

    enum StubError: Error {
        case socket
    }
}

private extension [UInt8] {
    var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}
