import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that refuses every connection while it is held: a socket is bound to it but never
/// listens, so the kernel answers connections with a reset and gives the port to no other server, in this process or
/// another, until ``release()``. "Pl@ntNet is offline" tests point there.
///
/// A port taken from a server that was started and stopped is not enough: with many tests starting servers at once,
/// the next one may be given the same port, and "offline" then answers.
public final class RefusingPort: Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Mutex<Int32?>

    /// Binds a socket to a free port on 127.0.0.1 and holds it.
    public init() throws {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RefusingPortError(operation: "socket", code: errno) }
        // No SO_REUSEADDR: a server that asks for this port while it is held must be refused it.
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw RefusingPortError(operation: "bind", code: code)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = Mutex(fd)
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Lets the port go, e.g. just before a server starts on it to play "back online". Safe to call twice.
    public func release() {
        if let fd = descriptor.withLock({ held -> Int32? in defer { held = nil }; return held }) {
            close(fd)
        }
    }

    deinit { release() }
}

/// The socket call that failed while reserving a ``RefusingPort``.
public struct RefusingPortError: Error, CustomStringConvertible {
    /// `socket` or `bind`.
    public var operation: String
    /// `errno`.
    public var code: Int32
    public var description: String { "\(operation) failed for a refusing port: \(String(cString: strerror(code)))" }
}
