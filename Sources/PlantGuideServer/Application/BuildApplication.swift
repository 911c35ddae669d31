import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOPosix
import PlantCatalog
import PlantGuideCore
import PlantGuideLive
import PlantHTTP
import PlantReminders
import PlantStore
import ServiceLifecycle
import Synchronization

/// Builds the web app. This is the one place where the server's parts are put together; the live
/// capabilities are chosen by ``ServerDependencies/live(dataDirectory:environment:logger:httpClient:store:)`` and passed in,
/// tests pass fakes.
/// - Parameters:
///   - configuration: address, limits and password.
///   - dependencies: what the app can do; missing capabilities show as "not available yet".
///   - logger: where request and error lines go.
///   - onServerRunning: called with the bound address once the server listens (the CLI prints it).
public func buildApplication(
    configuration: ServerConfiguration,
    dependencies: ServerDependencies,
    logger: Logger = Logger(label: "plantguide.server"),
    onServerRunning: @escaping @Sendable (_ address: String) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    try configuration.validate()
    let router = buildRouter(configuration: configuration, dependencies: dependencies)
    // What other replicas changed (settings) is picked up one interval after a request, in the background, and expired
    // uploads are forgotten then: an idle server does nothing.
    let refresh = dependencies.refresh.map(RequestRefresh.init)
    let responder = BenchmarkRoutes.Responder(
        app: RefreshingResponder(app: router.buildResponder(), refresh: refresh),
        bare: configuration.benchmarkRoutes ? BenchmarkRoutes.router().buildResponder() : nil
    )
    let connections = ConnectionCounter(maximumPerAddress: configuration.maximumConnectionsPerAddress)
    // The outgoing client shuts down last: services stop in reverse order, after the server and the re-check queue.
    var services: [any Service] = dependencies.ownedHTTPClient.map { [HTTPClientService(client: $0, logger: logger)] } ?? []
    // The re-check queue drains in the background, in the same service group, and stops with the server.
    if let recheck = dependencies.recheck { services.append(RecheckService(recheck: recheck, logger: logger)) }
    if let refresh { services.append(refresh) }
    // Care reminders go out at each channel's time of day; between rounds the service sleeps.
    if let reminders = dependencies.reminders { services.append(ReminderService(runner: reminders, logger: logger)) }
    // Hummingbird's Application, run without its once-a-second date task (QuietApplication), so an idle server sleeps.
    return QuietApplication(
        responder: responder,
        // Idle connections (and request heads sent too slowly) are closed after the idle timeout; one address
        // may hold only so many connections. Bodies have their own deadline where they are read.
        server: .http1(configuration: .init(
            additionalChannelHandlers: [ConnectionLimiter(counter: connections)],
            idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds))
        )),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "PlantGuide"),
        services: services,
        // Outgoing calls wait on the same event loops as the requests that made them.
        eventLoopGroup: dependencies.ownedHTTPClient?.eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton,
        logger: logger,
        running: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            await onServerRunning("http://\(host):\(port)/")
        }
    )
}

/// The router with every route and middleware, for ``buildApplication(configuration:dependencies:logger:onServerRunning:)``
/// and for router tests.
public func buildRouter(configuration: ServerConfiguration, dependencies: ServerDependencies) -> Router<AppRequestContext> {
    // HEAD answers wherever GET does: the GET handler's headers without its body.
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    let sessions = SessionStore(secret: dependencies.sessionSecret, now: dependencies.now)
    let throttle = LoginThrottle(now: dependencies.now)
    let queue = IdentifyQueue(maximumConcurrent: configuration.identifyConcurrency, maximumQueued: configuration.identifyQueueLength)
    let uploads = dependencies.recentUploads ?? RecentUploads()

    router.addMiddleware {
        RequestLogMiddleware()
        SecurityHeadersMiddleware()
        LanguageMiddleware(pseudoAllowed: configuration.pseudoLocale)
        ErrorMiddleware()
        RequestGate(
            sessions: sessions, accounts: dependencies.accounts, configuration: configuration, identifyQueue: queue,
            now: dependencies.now
        )
        MemberPreferencesMiddleware(accounts: dependencies.accounts)
        // Again inside, so a route's error page is written in the member's language too (the outer one answers the
        // errors RequestGate throws, in the browser's language).
        ErrorMiddleware()
    }
    GeneralRoutes(dependencies: dependencies, configuration: configuration, queue: queue).register(on: router)
    AuthRoutes(
        configuration: configuration, sessions: sessions, accounts: dependencies.accounts, throttle: throttle, now: dependencies.now
    ).register(on: router)
    CatalogRoutes(
        catalog: dependencies.catalog, careAdvice: dependencies.careAdvice, canCollect: dependencies.collection != nil,
        now: dependencies.now, care: dependencies.care
    ).register(on: router)
    IdentifyRoutes(
        currentIdentification: dependencies.currentIdentification, collection: dependencies.collection, recheck: dependencies.recheck,
        catalog: dependencies.catalog, queue: queue, uploads: uploads, configuration: configuration,
        statistics: dependencies.statistics, modelProblem: dependencies.settings?.modelProblem,
        modelInstalls: dependencies.modelInstalls
    ).register(on: router)
    DiagnoseRoutes(
        currentIdentification: dependencies.currentIdentification, collection: dependencies.collection, uploads: uploads,
        configuration: configuration
    ).register(on: router)
    let reminders = dependencies.reminders.map { ReminderCapability.live($0, now: dependencies.now) }
    CollectionRoutes(
        collection: dependencies.collection, recheck: dependencies.recheck, uploads: uploads, configuration: configuration,
        catalog: dependencies.catalog, reminders: reminders
    ).register(on: router)
    UserRoutes(accounts: dependencies.accounts, now: dependencies.now).register(on: router)
    CareRoutes(care: dependencies.care, feed: dependencies.calendarFeed, now: dependencies.now, reminders: reminders)
        .register(on: router)
    ModelRoutes(installs: dependencies.modelInstalls).register(on: router)
    SettingsRoutes(
        settings: dependencies.settings, modelInstalls: dependencies.modelInstalls, calendarFeed: dependencies.calendarFeed,
        currentIdentification: dependencies.currentIdentification, recheck: dependencies.recheck,
        statistics: dependencies.statistics, care: dependencies.care,
        reminders: reminders
    ).register(on: router)
    return router
}

extension ServerDependencies {
    /// The live capabilities for a data directory: what is installed and configured there.
    /// Every capability whose parts are present is on; the rest show as not available yet.
    /// `PLANTGUIDE_HEMISPHERE` in `environment` (`north`, the default, or `south`) decides which months are
    /// the rest season, for care schedules and the catalog's plant pages.
    /// - Parameters:
    ///   - httpClient: the client the server owns for its outgoing calls, from ``makeHTTPClient()``: the application
    ///     built over these dependencies runs on its event loops and shuts it down when it stops. Without one, the calls
    ///     use the process's client, which is never shut down.
    ///   - store: where the collection, accounts and shared state are kept (a PostgreSQL store, for replicas on several
    ///     machines); the data directory's SQLite database when `nil`. Photos and models stay in the data directory.
    public static func live(
        dataDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger = Logger(label: "plantguide.server"), httpClient: HTTPClient? = nil, store sharedStore: (any PlantGuideStore)? = nil
    ) async -> ServerDependencies {
        let http = httpClient ?? OutgoingHTTP.processClient
        let directory = DataDirectory(url: dataDirectory)
        let log: @Sendable (String) -> Void = { logger.warning("\($0)") }
        let catalog = PlantCatalog()
        var usableCatalog: PlantCatalog? = catalog
        do {
            try catalog.load()
        } catch {
            logger.error("catalog not loaded", metadata: ["error": "\(error)"])
            usableCatalog = nil
        }
        let now: @Sendable () -> Date = { Date() }
        // The same setting as the command line's; `plantguide serve` refuses a value that names neither.
        let hemisphere = Hemisphere(environment: environment) ?? .north
        // The on-device model is loaded once, for identification and the collection's photo embeddings alike, and again
        // only when the default model changes (installed or chosen in Settings, or by another replica).
        let model = SharedModel(directory: directory, threads: 1)
        let loadModel = { @Sendable in
            guard model.refresh(), case .failed(let url, _) = model.state else { return }
            log("on-device model \(url.lastPathComponent) not loaded")
        }
        loadModel()
        let store = LiveStore.make(
            directory: directory, store: sharedStore, catalog: catalog, model: model, hemisphere: hemisphere, now: now, log: log
        )
        let catalogForAnswers = usableCatalog
        let collectionForAnswers = store?.2
        // `plantguide serve` refuses a limit that is not a number of seconds; here such a value means the default.
        let onDeviceTimeout = LiveIdentification.onDeviceTimeout(environment: environment)
        // The Pl@ntNet quota and cache live in the collection's store, shared with the command line (and replicas).
        let plantNet = PlantNetState.live(
            directory: directory, collection: store?.2, environment: environment, now: now, warn: log
        )
        // The secret, settings and calendar address live in the collection's store too, shared by every replica.
        let shared = await SharedServerState.live(directory: directory, collection: store?.2, now: now, log: log)
        let loadLocal = { @Sendable (preferences: ServerPreferences) in
            LiveIdentification.localParts(
                directory: directory, model: model, catalog: catalogForAnswers, collection: collectionForAnswers,
                onDeviceTimeout: onDeviceTimeout, preferences: preferences, log: log
            )
        }
        let local = Mutex(loadLocal(shared.initialPreferences))
        let identification: @Sendable () -> IdentificationCapability? = {
            LiveIdentification.make(
                local: local.withLock { $0 }, directory: directory, environment: environment, http: http, plantNet: plantNet,
                log: log
            )
        }
        var dependencies = ServerDependencies(
            catalog: usableCatalog, identification: identification(), collection: store?.0, care: store?.1,
            careAdvice: LiveCareAdvice.make(hemisphere: hemisphere, log: log), now: now
        )
        // A key saved in Settings is used at once: identification is rebuilt over it, the on-device model kept.
        let holder = dependencies.currentIdentification
        // The key file and the default model as last put in use, to notice another replica changing them.
        let sharedFiles = Mutex(LiveSettings.sharedFiles(directory))
        let usePreferences = { @Sendable (preferences: ServerPreferences) in
            sharedFiles.withLock { $0 = LiveSettings.sharedFiles(directory) }
            loadModel()
            let reloaded = loadLocal(preferences)
            local.withLock { $0 = reloaded }
            holder.replace(with: identification())
        }
        dependencies.settings = LiveSettings.make(
            directory: directory, environment: environment, plantNet: plantNet, preferences: shared.preferences, log: log,
            keySaved: {
                sharedFiles.withLock { $0.key = LiveSettings.sharedFiles(directory).key }
                holder.replace(with: identification())
            },
            preferencesSaved: usePreferences,
            checkKey: { key in try await LiveSettings.checkKey(key, environment: environment, directory: directory, http: http) }
        )
        // A model installed from Settings is loaded at once, with the settings in use.
        dependencies.modelInstalls = LiveModelInstalls.make(
            directory: directory, environment: environment,
            installed: {
                sharedFiles.withLock { $0.model = LiveSettings.sharedFiles(directory).model }
                usePreferences(local.withLock { $0.preferences })
            },
            log: log
        )
        dependencies.calendarFeed = shared.calendarFeed
        // Reminders are sent from the collection's store (claim rows keep each digest to one replica).
        if let reminderStore = sharedStore ?? store?.2.store {
            do {
                let runner = try ReminderRunner.live(
                    store: reminderStore, careDefaults: CareSettings(hemisphere: hemisphere, timeZone: .current),
                    environment: environment, directory: directory
                )
                dependencies.reminders = runner
                if case .failure(let error)? = runner.email { log("Email reminders are off: \(error.description).") }
            } catch {
                log("Care reminders are off: \(error.description).")
            }
        }
        dependencies.recentUploads = shared.uploads
        if shared.isShared {
            // Settings another replica saved are put in use here within one interval.
            let source = shared.preferences
            let uploads = shared.uploads
            // Expired uploads are forgotten once a minute (a purge writes, a settings check only reads), and the photo
            // trash is emptied once an hour, of files that waited an hour and no photo names.
            let purge = RefreshCadence(every: .seconds(60))
            let trashSweep = RefreshCadence(every: .seconds(3_600))
            let trashOwner = store?.2
            dependencies.refresh = ServerRefresh(interval: ServerRefresh.interval(environment: environment)) {
                // A settings read that fails (the database briefly away) keeps what is in use.
                if let latest = await source.loadIfReadable(), latest != local.withLock({ $0.preferences }) {
                    usePreferences(latest)
                } else {
                    // Another replica saved a key or chose a model in the shared data directory: a new model is loaded
                    // (with the settings in use); a new key only rebuilds the identification over it.
                    let now = LiveSettings.sharedFiles(directory)
                    let seen = sharedFiles.withLock { seen in
                        defer { seen = now }
                        return seen
                    }
                    if seen.model != now.model {
                        log("the default model changed in the data directory; loading it")
                        usePreferences(local.withLock { $0.preferences })
                    } else if seen.key != now.key {
                        log("the Pl@ntNet key changed in the data directory; using it")
                        holder.replace(with: identification())
                    }
                }
                if purge.isDue() { await uploads?.purge() }
                if trashSweep.isDue(), let collection = trashOwner { await collection.emptyPhotoTrash() }
            }
        }
        // Accounts and log-ins live in the collection database: a restart keeps everyone logged in until their
        // log-in expires, and a changed password or removed account ends its log-ins on every server at once.
        if let accounts = AccountDirectory(collection: store?.2) {
            dependencies.accounts = accounts
        }
        if let database = store?.2.store {
            // Every identification is logged for the statistics in Settings, with the same clock as the rest.
            dependencies.statistics = StatisticsCapability(
                record: { run in try await database.recordIdentificationRun(run, now: now(), retention: .standard) },
                summary: { last in try await database.identificationStatistics(last: last, days: 30, now: now()) }
            )
        }
        dependencies.sessionSecret = shared.sessionSecret
        dependencies.ownedHTTPClient = httpClient
        if let collection = store?.2 {
            dependencies.recheck = LiveRecheck.make(
                collection: collection, identification: holder, environment: environment, log: log
            )
        }
        return dependencies
    }
}
