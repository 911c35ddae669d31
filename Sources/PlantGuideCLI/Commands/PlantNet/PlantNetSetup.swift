import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantNetAPI
import PlantStore

/// Builds the Pl@ntNet parts from the data directory and the environment: the one place the command line
/// chooses the live client, quota, cache and offline back-off. The quota and cache are in the run's database
/// (``CommandContext``), shared with the web app; in the files of the data directory only when the database cannot be
/// opened.
final class PlantNetSetup {
    let context: CommandContext
    var directory: DataDirectory { context.directory }
    var environment: [String: String] { context.environment }
    private var opened: PlantNetState?

    init(_ context: CommandContext) {
        self.context = context
    }

    /// The quota and cache, opened on first use.
    func state(console: Console) -> PlantNetState {
        if let opened { return opened }
        let warn: @Sendable (String) -> Void = { console.warn($0) }
        var store: (any PlantGuideStore)?
        do {
            store = try context.open()
        } catch {
            warn("warning: the collection database cannot be opened (\(error)); the Pl@ntNet quota and cache use the files in "
                + directory.url.path)
        }
        let state = PlantNetState.live(directory: directory, store: store, environment: environment, warn: warn)
        opened = state
        return state
    }

    /// The daily quota.
    func quota(console: Console) -> any QuotaLedger { state(console: console).quota }

    /// The answer cache.
    func cache(console: Console) -> any AnswerCache { state(console: console).cache }

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
            let state = state(console: console)
            return .success(PlantNetService(
                client: client, quota: state.quota, cache: state.cache, reachability: Reachability(),
                diagnoses: state.diagnoses, diseaseList: DiseaseListCache(directory: directory.url),
                warn: { console.warn("warning: \($0)") }
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
