import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket call that failed while taking a port on 127.0.0.1.
public struct LoopbackSocketError: Error, CustomStringConvertible {
    /// `socket`, `bind` or `listen`.
    public var operation: String
    /// `errno`.
    public var code: Int32
    public var description: String { "\(operation) failed on 127.0.0.1: \(String(cString: strerror(code)))" }
}

/// A new TCP socket bound to a free port on 127.0.0.1, listening when `backlog` is given: its descriptor and port.
func bindLoopback(reuseAddress: Bool, backlog: Int32?) throws(LoopbackSocketError) -> (descriptor: Int32, port: UInt16) {
    #if canImport(Glibc)
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw LoopbackSocketError(operation: "socket", code: errno) }
    if reuseAddress {
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let failed = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> String? in
            if bind(fd, pointer, length) != 0 { return "bind" }
            if let backlog, listen(fd, backlog) != 0 { return "listen" }
            return getsockname(fd, pointer, &length) == 0 ? nil : "getsockname"
        }
    }
    if let failed {
        let code = errno
        close(fd)
        throw LoopbackSocketError(operation: failed, code: code)
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}
