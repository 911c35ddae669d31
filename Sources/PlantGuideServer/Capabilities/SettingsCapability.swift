import Foundation
import PlantNetAPI

/// Pl@ntNet quota as last seen.
public struct QuotaStatus: Sendable, Codable, Hashable {
    /// Identifications left today.
    public var remaining: Int
    /// The daily allowance, if known.
    public var limit: Int?

    /// Creates a status.
    public init(remaining: Int, limit: Int?) {
        self.remaining = remaining
        self.limit = limit
    }
}

/// The API key, quota, cache and model facts the Settings page shows. The key itself never leaves.
public struct SettingsCapability: Sendable {
    /// Where the Pl@ntNet key in use comes from; `nil` when there is none.
    public var apiKeySource: @Sendable () async -> APIKeySource?
    /// Stores a new key, replacing any old one.
    public var replaceAPIKey: @Sendable (_ key: String) async throws -> Void
    /// The quota, when known.
    public var quota: @Sendable () async -> QuotaStatus?
    /// Cache facts as label/value rows, e.g. ("Entries", "42").
    public var cacheStatistics: @Sendable () async -> [(label: String, value: String)]
    /// On-device model facts as label/value rows; empty when no model is installed.
    public var modelInfo: @Sendable () async -> [(label: String, value: String)]
    /// How identification behaves (default strategy, threshold); `nil` when this server cannot change it.
    public var preferences: (@Sendable () async -> ServerPreferences)?
    /// Why the last on-device model install failed (and what to do), while no model is installed; `nil` otherwise.
    public var modelProblem: @Sendable () -> String? = { nil }
    /// The installed on-device models by file name, and which one answers.
    public var models: @Sendable () async -> (names: [String], current: String?) = { ([], nil) }
    /// Stores new preferences and the model to use (a name from ``models``, or `nil` to keep it), and puts them in
    /// force at once.
    public var savePreferences: @Sendable (_ preferences: ServerPreferences, _ model: String?) async throws -> Void = { _, _ in
        throw ServerError.capabilityMissing("This server cannot change its identification settings.")
    }

    /// Creates the capability.
    public init(
        apiKeySource: @escaping @Sendable () async -> APIKeySource?,
        replaceAPIKey: @escaping @Sendable (_ key: String) async throws -> Void,
        quota: @escaping @Sendable () async -> QuotaStatus?,
        cacheStatistics: @escaping @Sendable () async -> [(label: String, value: String)],
        modelInfo: @escaping @Sendable () async -> [(label: String, value: String)]
    ) {
        self.apiKeySource = apiKeySource
        self.replaceAPIKey = replaceAPIKey
        self.quota = quota
        self.cacheStatistics = cacheStatistics
        self.modelInfo = modelInfo
    }
}
