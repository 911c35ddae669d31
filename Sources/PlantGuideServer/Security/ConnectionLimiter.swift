import NIOCore
import Synchronization

/// Counts open connections per client address, shared by every connection's ``ConnectionLimiter``.
public final class ConnectionCounter: Sendable {
    /// Connections allowed from one address at once.
    public let maximumPerAddress: Int
    private let open = Mutex<[String: Int]>([:])

    /// Creates a counter allowing `maximumPerAddress` connections per address.
    public init(maximumPerAddress: Int) {
        self.maximumPerAddress = max(1, maximumPerAddress)
    }

    /// Takes a slot for `address`; `false` when it already has the maximum.
    func acquire(_ address: String) -> Bool {
        open.withLock { open in
            let count = open[address, default: 0]
            guard count < maximumPerAddress else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Gives a slot back.
    func release(_ address: String) {
        open.withLock { open in
            let count = open[address, default: 1] - 1
            open[address] = count > 0 ? count : nil
        }
    }

    /// Connections open from `address` now.
    public func count(for address: String) -> Int { open.withLock { $0[address, default: 0] } }
}

/// Closes a new connection when its address already has ``ConnectionCounter/maximumPerAddress`` open, so one
/// client cannot hold every socket and file descriptor the server has.
final class ConnectionLimiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let counter: ConnectionCounter
    private var address: String?

    init(counter: ConnectionCounter) {
        self.counter = counter
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { take(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if address == nil {
            take(context)
            // Refused: the channel is closing, so nothing downstream may hear it became active.
            guard address != nil else { return }
        }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let address { counter.release(address) }
        address = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let address { counter.release(address) }
        address = nil
        context.fireChannelInactive()
    }

    private func take(_ context: ChannelHandlerContext) {
        let key = context.remoteAddress?.ipAddress ?? "unknown"
        if counter.acquire(key) {
            address = key
        } else {
            context.close(promise: nil)
        }
    }
}
