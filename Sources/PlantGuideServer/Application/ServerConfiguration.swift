import Foundation
import PlantGuideLive

/// How the server runs: where it listens, its limits, and the password when it is exposed.
public struct ServerConfiguration: Sendable {
    /// Address to bind; loopback by default.
    public var host: String
    /// Port to bind; 0 picks a free one.
    public var port: Int
    /// Largest request body accepted, in bytes.
    public var maxUploadBytes: Int
    /// Identifications that run at once.
    public var identifyConcurrency: Int
    /// Identifications that may wait for a turn before new ones are refused with 503.
    public var identifyQueueLength: Int
    /// The hashed password. Required when `host` is not a loopback address; when set, every page and
    /// API call needs a logged-in session.
    public var passwordHash: PasswordHash?
    /// Whether accounts exist (in the collection database): then every page and API call needs a log-in, also on
    /// a loopback address, and an exposed server may start.
    public var hasAccounts = false
    /// The data directory shown to the user (models, database, key).
    public var dataDirectory: URL?
    /// Seconds a connection may stay open without a request in progress (also bounds a request head sent slowly).
    public var idleTimeoutSeconds: Int = 30
    /// Open connections allowed from one client address at once; more are closed as they arrive.
    public var maximumConnectionsPerAddress: Int = 128
    /// Proxy addresses whose `X-Forwarded-Proto` is believed (a TLS reverse proxy on this machine, by default),
    /// so the session cookie is marked `Secure` when the browser's connection was HTTPS.
    public var trustedProxies: Set<String> = ["127.0.0.1", "::1"]
    /// Whether the benchmark-only routes under ``BenchmarkRoutes/prefix`` answer (`scripts/load-check` turns them
    /// on with the hidden `serve --benchmark-routes`): a bare route that the load check compares the app's routes
    /// with. Off in every normal run, where those addresses are unknown (404).
    public var benchmarkRoutes = false
    /// Whether a browser may ask for the `en-XA` pseudo-language (`Accept-Language: en-XA`), which shows untranslated
    /// and clipped text in tests: `PLANTGUIDE_PSEUDO_LOCALE=1` when `serve` starts. Off in normal runs.
    public var pseudoLocale = false

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxUploadBytes: Int = 25 * 1_048_576,
        identifyConcurrency: Int = 2, identifyQueueLength: Int = 8, passwordHash: PasswordHash? = nil,
        dataDirectory: URL? = nil
    ) {
        self.host = host
        self.port = port
        self.maxUploadBytes = maxUploadBytes
        self.identifyConcurrency = identifyConcurrency
        self.identifyQueueLength = identifyQueueLength
        self.passwordHash = passwordHash
        self.dataDirectory = dataDirectory
    }

    /// Whether every request needs a log-in.
    public var requiresLogin: Bool { passwordHash != nil || hasAccounts }

    /// Whether `host` only accepts connections from this machine.
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// Whether a host name or address is a loopback one (`127.0.0.0/8`, `::1`, `localhost`).
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
    }

    /// Refuses to expose the server without a password.
    public func validate() throws(ServerError) {
        if !isLoopback, !requiresLogin {
            throw .badRequest(
                "Binding to \(host) exposes PlantGuide to your network, so it needs a password first: "
                    + "run `plantguide user add NAME` (it reads the password from standard input)."
            )
        }
        guard (0...65535).contains(port) else { throw .badRequest("--port must be between 0 and 65535.") }
        guard maxUploadBytes >= 1024 else { throw .badRequest("The upload limit must be at least 1 KB.") }
    }
}
