import AsyncHTTPClient
import Logging
import ServiceLifecycle

/// Owns the server's outgoing HTTP client in the service group: waits for the graceful shutdown, then shuts the
/// client down (requests still waiting on Pl@ntNet end as cancelled), so it never outlives the server.
struct HTTPClientService: Service {
    let client: HTTPClient
    let logger: Logger

    func run() async throws {
        // Returns at the graceful shutdown, or when the group is cancelled.
        try? await gracefulShutdown()
        do {
            try await client.shutdown()
        } catch {
            logger.warning("the outgoing HTTP client did not shut down cleanly", metadata: ["error": "\(error)"])
        }
    }
}
