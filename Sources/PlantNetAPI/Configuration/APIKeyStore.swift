import Foundation
import PlantGuideCore

/// Keeps the Pl@ntNet API key in the data directory, readable by its owner only (mode 0600).
public struct APIKeyStore: Sendable {
    /// The key file.
    public let file: URL

    /// A store in `directory` (file `plantnet-api-key`).
    public init(directory: DataDirectory) {
        file = directory.appending("plantnet-api-key")
    }

    /// The key from `PLANTNET_API_KEY`, else from the file; `nil` when neither holds one.
    public func key(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let key = Self.environmentKey(environment) { return key }
        return storedKey()
    }

    /// Where ``key(environment:)`` finds the key; `nil` when no key is configured.
    public func source(environment: [String: String] = ProcessInfo.processInfo.environment) -> APIKeySource? {
        if Self.environmentKey(environment) != nil { return .environment }
        return storedKey() == nil ? nil : .dataDirectory
    }

    private static func environmentKey(_ environment: [String: String]) -> String? {
        guard let key = environment["PLANTNET_API_KEY"]?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty
        else { return nil }
        return key
    }

    /// The key in the file, if any.
    public func storedKey() -> String? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return key.isEmpty ? nil : key
    }

    /// Saves `key` (trimmed) with mode 0600, replacing any earlier one.
    public func save(_ key: String) throws(PlantNetError) {
        let trimmed = key.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isWhitespace) else {
            throw .invalidRequest("the API key must be one word without spaces.")
        }
        do {
            try AtomicFile.write(Data((trimmed + "\n").utf8), to: file, permissions: 0o600, durable: true)
        } catch {
            throw .storage("the key could not be saved: \(error)")
        }
    }

    /// Deletes the saved key. Returns whether there was one.
    @discardableResult
    public func remove() -> Bool {
        (try? FileManager.default.removeItem(at: file)) != nil
    }
}

/// Where the Pl@ntNet API key in use comes from.
public enum APIKeySource: String, Sendable, Codable, Hashable {
    /// The `PLANTNET_API_KEY` environment variable; it wins over a stored key.
    case environment
    /// The key file in the data directory (`plantguide config set-api-key`, or Settings in the web app).
    case dataDirectory
}
