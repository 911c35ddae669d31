import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import PlantHTTP
import Synchronization
import Testing
@testable import PlantGuideServer

/// The server as `plantguide serve` runs it (``QuietApplication``, without Hummingbird's once-a-second date task): it
/// answers with its Date and Server headers and stops when its task is cancelled.
@Suite struct QuietApplicationTests {
    @Test func theDateHeaderIsIMFFixdateAndFormattedOncePerSecond() {
        #expect(HTTPDateHeader.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateHeader.format(1_795_478_400) == "Tue, 24 Nov 2026 00:00:00 GMT")
        #expect(HTTPDateHeader.format(1_795_529_599) == "Tue, 24 Nov 2026 14:13:19 GMT")
        let header = HTTPDateHeader()
        #expect(header.header(at: 1_795_478_400) == "Tue, 24 Nov 2026 00:00:00 GMT")
        #expect(header.header(at: 1_795_478_401) == "Tue, 24 Nov 2026 00:00:01 GMT")
    }

    @Test func theServerAnswersWithItsHeadersAndStopsWhenCancelled() async throws {
        var configuration = ServerConfiguration(host: "127.0.0.1")
        configuration.port = 0
        let address = Mutex<String?>(nil)
        let app = try buildApplication(
            configuration: configuration, dependencies: ServerDependencies(catalog: fixtureCatalog),
            logger: Logger(label: "plantguide.test.quiet") { _ in SwiftLogNoOpLogHandler() },
            onServerRunning: { url in address.withLock { $0 = url } }
        )
        let server = Task { try await app.run() }
        defer { server.cancel() }
        var url: String?
        for _ in 0..<200 where url == nil {
            try await Task.sleep(for: .milliseconds(50))
            url = address.withLock { $0 }
        }
        let base = try #require(url)
        let response = try await OutgoingHTTP.processClient.execute(HTTPClientRequest(url: base + "healthz"), timeout: .seconds(30))
        #expect(response.status == .ok)
        #expect(response.headers.first(name: "Server") == "PlantGuide")
        let date = try #require(response.headers.first(name: "Date"))
        #expect(date.hasSuffix(" GMT") && date.count == 29, "\(date)")
        _ = try? await response.body.collect(upTo: 1_024)
        // Cancelled, it stops (bounded: a server that kept running would fail here, not hang the suite).
        server.cancel()
        let ended = Mutex(false)
        Task {
            _ = await server.result
            ended.withLock { $0 = true }
        }
        var stopped = false
        for _ in 0..<600 where !stopped {
            try await Task.sleep(for: .milliseconds(50))
            stopped = ended.withLock { $0 }
        }
        #expect(stopped)
    }
}
