import Foundation
import PlantGuideCore

/// Where the Pl@ntNet service is and how to talk to it.
public struct PlantNetConfiguration: Sendable {
    /// The real service.
    public static let defaultBaseURL = URL(string: "https://my-api.plantnet.org")!

    /// Root of the API, e.g. `https://my-api.plantnet.org`; `PLANTGUIDE_PLANTNET_URL` overrides it.
    public var baseURL: URL
    /// The account's API key; never printed.
    public var apiKey: String?
    /// How long to wait for one answer.
    public var timeout: Duration
    /// Delay before the first retry; each further retry waits twice as long.
    public var retryDelay: Duration
    /// How many times a network failure or 5xx is retried (never a 4xx).
    public var maximumRetries: Int

    /// Creates a configuration; the defaults are the spec's (30 s, one retry after 0.5 s).
    public init(
        baseURL: URL = Self.defaultBaseURL, apiKey: String?, timeout: Duration = .seconds(30),
        retryDelay: Duration = .milliseconds(500), maximumRetries: Int = 1
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.timeout = timeout
        self.retryDelay = retryDelay
        self.maximumRetries = maximumRetries
    }

    /// Reads `PLANTGUIDE_PLANTNET_URL` and the key (`PLANTNET_API_KEY`, else the key file in `directory`).
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment, directory: DataDirectory
    ) throws(PlantNetError) -> PlantNetConfiguration {
        var baseURL = defaultBaseURL
        if let text = environment["PLANTGUIDE_PLANTNET_URL"], !text.isEmpty {
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil
            else { throw .invalidRequest("PLANTGUIDE_PLANTNET_URL '\(text)' is not an http(s) URL.") }
            baseURL = url
        }
        let key = APIKeyStore(directory: directory).key(environment: environment)
        return PlantNetConfiguration(baseURL: baseURL, apiKey: key)
    }
}
