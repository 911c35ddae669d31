import Foundation
import PlantGuideCore
import PlantNetAPI

/// Builds the Pl@ntNet parts from the data directory and the environment: the one place the command line
/// chooses the live client, quota file, cache file and offline back-off.
struct PlantNetSetup {
    let directory: DataDirectory
    let environment: [String: String]

    init(
        directory: DataDirectory = .resolve(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.directory = directory
        self.environment = environment
    }

    var quota: QuotaTracker { QuotaTracker(file: directory.appending("plantnet-quota.json")) }

    func cache(console: Console) -> IdentificationCache {
        IdentificationCache(file: directory.appending("plantnet-cache.json"), warn: { console.warn($0) })
    }

    var keyStore: APIKeyStore { APIKeyStore(directory: directory) }

    /// The service, or why there is none (no key, bad URL).
    func service(console: Console, verbose: Bool) -> Result<PlantNetService, PlantNetError> {
        do throws(PlantNetError) {
            let configuration = try PlantNetConfiguration.resolve(environment: environment, directory: directory)
            guard configuration.apiKey != nil else { throw .missingAPIKey }
            try directory.createIfNeeded()
            let client = PlantNetClient(configuration: configuration, log: { line in
                if verbose { console.warn(console.style(line, .dim)) }
            })
            return .success(PlantNetService(
                client: client, quota: quota, cache: cache(console: console), reachability: Reachability()
            ))
        } catch {
            return .failure(error)
        }
    }
}

extension DataDirectory {
    /// Creates the folder, as a typed error when that fails.
    func createIfNeeded() throws(PlantNetError) {
        do { try create() } catch { throw .storage("cannot create the data directory \(url.path): \(error)") }
    }
}
