import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The web app as Hummingbird's `Application` runs it, without the task that re-formats the `Date` header once a
/// second: an idle server then wakes for nothing (its other services sleep until they have work). The header is
/// formatted when a response needs it, at most once a second (``HTTPDateHeader``).
///
/// Tests built with HummingbirdTesting run the same responder, services and server through their own wrapper.
struct QuietApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let server: HTTPServerBuilder
    let configuration: ApplicationConfiguration
    let services: [any Service]
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    let running: @Sendable (any Channel) async -> Void

    @Sendable func onServerRunning(_ channel: any Channel) async { await running(channel) }

    func run() async throws {
        let responder = self.responder, logger = self.logger, serverName = configuration.serverName
        let date = HTTPDateHeader()
        let server = try self.server.buildServer(
            configuration: HummingbirdCore.ServerConfiguration(
                address: configuration.address, serverName: configuration.serverName, backlog: configuration.backlog,
                reuseAddress: configuration.reuseAddress
            ),
            eventLoopGroup: eventLoopGroup, logger: logger,
            responder: { (request, writer: consuming ResponseWriter, channel) in
                let context = Responder.Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    logger.debug("unhandled error", metadata: ["error.type": "\(type(of: error))"])
                    response = Response(status: .internalServerError)
                }
                response.headers[.date] = date.current()
                if let serverName { response.headers[.server] = serverName }
                do {
                    try await writer.write(response: response.head, body: response.body)
                } catch is HTTPParserError {
                    // The request turned out malformed while the answer was written: close, write no second answer.
                    throw ResponseAbandoned()
                }
            },
            onServerRunning: { channel in await self.onServerRunning(channel) }
        )
        try await ServiceGroup(configuration: .init(services: services + [server], logger: logger)).run()
    }

    private struct ResponseAbandoned: Error {}
}

/// The `Date` header (RFC 9110's IMF-fixdate, e.g. `Sun, 29 Nov 2026 08:00:00 GMT`), formatted at most once a second
/// and only when a response asks for it.
final class HTTPDateHeader: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    /// The header for now.
    func current() -> String { header(at: Int(Date().timeIntervalSince1970)) }

    /// The header for a moment, in whole seconds since 1970.
    func header(at second: Int) -> String {
        cached.withLock { cached in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.text
        }
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate of a moment in seconds since 1970.
    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
