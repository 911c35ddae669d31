import Foundation
import PlantNetStub
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that refuses every connection while it is held: a socket is bound to it but never
/// listens, so the kernel answers connections with a reset and gives the port to no other server or connection, in
/// this process or another. "Pl@ntNet is offline" tests point there; "Pl@ntNet is back" hands the bound socket to a
/// stub (``PlantNetStub/start(behaviour:takingOver:)``), never letting the port go in between.
///
/// A port taken from a server that was started and stopped is not enough: with many tests starting servers and
/// connections at once, the next one may be given the same port, and "offline" then answers. Nor is letting the port
/// go just before a server starts there: CI saw another connection take it in that moment.
public final class RefusingPort: Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Mutex<Int32?>

    /// Binds a socket to a free port on 127.0.0.1 and holds it.
    public init() throws(LoopbackSocketError) {
        // No SO_REUSEADDR: a server that asks for this port while it is held must be refused it.
        let (fd, port) = try bindLoopback(reuseAddress: false, backlog: nil)
        self.port = Int(port)
        descriptor = Mutex(fd)
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Lets the port go. Safe to call twice, and after ``handOver()``.
    public func release() {
        if let fd = handOver() { close(fd) }
    }

    /// The bound socket, for a server to listen on and own from now on; nil once handed over or released.
    public func handOver() -> Int32? {
        descriptor.withLock { held -> Int32? in
            defer { held = nil }
            return held
        }
    }

    deinit { release() }
}

extension PlantNetStub {
    /// Starts a stub on the port `offline` held, taking over its socket: "Pl@ntNet is back" on the address the code
    /// under test already uses, with no moment in which the port is free.
    public static func start(behaviour: PlantNetStubBehaviour = PlantNetStubBehaviour(), takingOver offline: RefusingPort) async throws
        -> PlantNetStub {
        guard let socket = offline.handOver() else { throw LoopbackSocketError(operation: "hand over", code: EBADF) }
        return try await start(behaviour: behaviour, boundSocket: socket)
    }
}
