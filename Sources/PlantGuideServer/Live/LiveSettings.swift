import AsyncHTTPClient
import Foundation
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantNetAPI

/// API key, quota, cache and model facts from the data directory.
enum LiveSettings {
    /// Asks Pl@ntNet whether it accepts `key` with the project list, which spends no identification: a refused key
    /// is an error (and is not saved); when Pl@ntNet cannot be reached or answers otherwise, the key is kept unchecked.
    static func checkKey(_ key: String, environment: [String: String], directory: DataDirectory, http: HTTPClient) async throws {
        var configuration = (try? PlantNetConfiguration.resolve(environment: environment, directory: directory))
            ?? PlantNetConfiguration(apiKey: nil)
        configuration.apiKey = key
        configuration.timeout = .seconds(10)
        configuration.maximumRetries = 0
        do {
            _ = try await PlantNetClient(configuration: configuration, http: http, log: { _ in }).projects()
        } catch {
            switch error {
            case .invalidAPIKey, .forbidden:
                throw ServerError.badRequest(
                    "Pl@ntNet does not accept this key, so it was not saved. Copy it again from my.plantnet.org (Settings, API key)."
                )
            default:
                return
            }
        }
    }

    /// The anti-forgery secret kept in the data directory (`session-secret`, readable by the server's user only),
    /// made on first use; `nil` (a per-process secret) when it cannot be read or written. Used when no collection
    /// store opens; with one, the secret is the store's (``SharedServerState``).
    static func sessionSecret(_ directory: DataDirectory, log: @escaping @Sendable (String) -> Void) -> Data? {
        let file = directory.appending("session-secret")
        if let stored = try? Data(contentsOf: file), stored.count == 32 { return stored }
        let secret = secureRandomBytes(32)
        do {
            try directory.create()
            try secret.write(to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            return secret
        } catch {
            log("session secret not stored (forms opened before a restart will need a reload): \(error)")
            return nil
        }
    }

    /// Summaries of the files in the shared data directory that Settings changes: the Pl@ntNet key file, and the default
    /// model (its pointer and the model file). Another replica's change shows as a different value, and is put in use
    /// by the refresh round: a new key without loading the model again, a new model by loading it.
    struct SharedFiles: Equatable {
        var key: String
        var model: String
    }

    /// The shared files' summaries now.
    static func sharedFiles(_ directory: DataDirectory) -> SharedFiles {
        let models = ModelStore(dataDirectory: directory)
        func summary(_ files: [URL]) -> String {
            files.map { file in
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else {
                    return "\(file.lastPathComponent):-"
                }
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                let size = (attributes[.size] as? Int) ?? -1
                let inode = (attributes[.systemFileNumber] as? Int) ?? -1
                return "\(file.lastPathComponent):\(modified):\(size):\(inode)"
            }.joined(separator: "|")
        }
        return SharedFiles(
            key: summary([APIKeyStore(directory: directory).file]),
            model: summary([models.pointer] + (models.defaultModel().map { [$0] } ?? []))
        )
    }

    /// The capability; `keySaved` is called after a new key is stored, to put it in use.
    /// - Parameters:
    ///   - preferences: where the identification settings are kept (the store's, shared by replicas; else the file).
    ///   - preferencesSaved: called with the new settings after they are stored, to put them in use.
    static func make(
        directory: DataDirectory, environment: [String: String], plantNet: PlantNetState,
        preferences: PreferencesSource? = nil, log: @escaping @Sendable (String) -> Void,
        keySaved: @escaping @Sendable () -> Void = {}, preferencesSaved: @escaping @Sendable (ServerPreferences) -> Void = { _ in },
        checkKey: @escaping @Sendable (String) async throws -> Void = { _ in }
    ) -> SettingsCapability {
        let preferences = preferences ?? .file(directory, log: log)
        let keys = APIKeyStore(directory: directory)
        var capability = SettingsCapability(
            apiKeySource: { keys.source(environment: environment) },
            replaceAPIKey: { key in
                try await checkKey(key)
                do {
                    try directory.create()
                    try keys.save(key)
                } catch {
                    throw ServerError.failed("The key could not be stored: \(error)")
                }
                keySaved()
            },
            quota: {
                let status = await plantNet.quota.status()
                return status.remaining.map { QuotaStatus(remaining: $0, limit: PlantNetState.dailyLimit(environment: environment)) }
            },
            cacheStatistics: {
                let statistics = await plantNet.cache.statistics()
                return [
                    ("Entries", "\(statistics.entries) of \(statistics.capacity)"),
                    ("Kept for", "\(Int(statistics.timeToLiveDays)) days"),
                    ("Hits / misses", "\(statistics.hits) / \(statistics.misses)"),
                    plantNet.cache is IdentificationCache
                        ? ("File size", ByteCountFormatter.string(fromByteCount: Int64(statistics.fileBytes), countStyle: .file))
                        : ("Kept in", "the collection database"),
                ]
            },
            modelInfo: {
                guard let url = ModelStore(dataDirectory: directory).defaultModel() else { return [] }
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                return [
                    ("File", url.lastPathComponent),
                    ("Size", ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file)),
                ]
            }
        )
        let models = ModelStore(dataDirectory: directory)
        capability.modelProblem = {
            guard models.defaultModel() == nil, let problem = models.installProblem() else { return nil }
            return "The on-device model could not be installed: \(problem.reason) Run `plantguide model install` on the "
                + "server (or scripts/run again) when it can reach the source, or add a Pl@ntNet key below."
        }
        capability.preferences = { await preferences.load() }
        capability.models = {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: models.folder.path)) ?? []
            return (names.filter { $0.hasSuffix("." + ModelFile.pathExtension) }.sorted(), models.defaultModel()?.lastPathComponent)
        }
        capability.savePreferences = { chosen, model in
            do {
                try await preferences.save(chosen)
                if let model {
                    let url = models.folder.appendingPathComponent(model)
                    guard !model.contains("/"), FileManager.default.fileExists(atPath: url.path) else {
                        throw ServerError.badRequest("There is no installed model “\(model)”.")
                    }
                    try models.makeDefault(url)
                }
            } catch let error as ServerError {
                throw error
            } catch {
                throw ServerError.failed("The settings could not be stored: \(error)")
            }
            preferencesSaved(chosen)
        }
        return capability
    }
}
