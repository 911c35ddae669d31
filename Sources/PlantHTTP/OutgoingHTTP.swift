import AsyncHTTPClient
import NIOCore
import NIOPosix

/// How PlantGuide talks to other services (Pl@ntNet, Trefle, model downloads): async-http-client on NIO's event
/// loops, which sleep while an answer is awaited (FoundationNetworking's URLSession busy-waits on Linux).
public enum OutgoingHTTP {
    /// The settings of every PlantGuide client: a refused connection fails at once, so the offline fallback answers
    /// quickly instead of retrying until the connect time-out; connecting may take 10 s; up to 5 redirects are
    /// followed (model downloads are redirected); answers are not decompressed (resumed downloads count raw bytes).
    public static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10))
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// A new client with ``configuration`` on `eventLoopGroup`; whoever makes it shuts it down (the server does when
    /// it stops).
    /// - Parameter eventLoopGroup: the loops to run on; the server passes the group Hummingbird serves on.
    public static func makeClient(eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
    }

    /// The command line's client: one per process, on NIO's shared event loops, with ``configuration``. Like
    /// `HTTPClient.shared` it lives as long as the process and is never shut down, so a command needs no teardown
    /// (a global is never deinitialised, so the client's check for a missing shutdown never runs).
    public static let processClient: HTTPClient = makeClient()

    /// The model downloads' client: ``configuration`` but following no redirect itself, so that the downloader can
    /// check each target (only https) and cap the hops. Process-wide and never shut down, like ``processClient``.
    public static let downloadClient: HTTPClient = {
        var settings = configuration
        settings.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: settings)
    }()

    /// `duration` in NIO's unit, for the client's own time-outs.
    public static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
