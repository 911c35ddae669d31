import ArgumentParser
import Foundation
import Logging
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantGuideServer
import PlantStore
import PlantStorePostgres
import PlantStoreSQLite

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the PlantGuide web app.",
        discussion: """
            Serves the web app (Identify, Browse, Collection, Care, Settings) and its JSON API, described \
            at /openapi.json. It listens on 127.0.0.1 only, unless --host says otherwise; another address \
            exposes PlantGuide to your network and therefore needs a password, set once with \
            an account: `plantguide user add NAME` (or --set-password, which sets the owner's password, \
            creating the account 'owner' when there is none; read from standard input, stored hashed). Once \
            an account exists, everyone logs in, also on 127.0.0.1. Stop the server with Ctrl-C; requests in \
            progress finish first.

            Examples:
              plantguide serve                                  http://127.0.0.1:8080/
              plantguide serve --port 0                         Pick a free port and print it.
              echo 'a long passphrase' | plantguide serve --set-password
              plantguide serve --host 0.0.0.0 --port 8080       Reachable from your phone (log-in required).

            Several replicas can serve one household or many behind a load balancer when they share a \
            database: --database postgres://USER@HOST/DATABASE (or PLANTGUIDE_DATABASE_URL) keeps the \
            collection, accounts, log-ins, the Pl@ntNet quota and cache, settings and recent identifications \
            there, and the data directory (photos, models) is shared between them; see docs/deploy.md.

            Set PLANTGUIDE_HEMISPHERE=south below the equator: it decides which months are winter, for care \
            schedules and the seasons on the catalog's plant pages. An on-device identification that takes \
            longer than 10 s is given up and Pl@ntNet asked instead (when a key is set); \
            PLANTGUIDE_ON_DEVICE_TIMEOUT=SECONDS changes the limit.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "Largest upload accepted, in megabytes.")
    var maxUploadMb = 25

    @Option(help: "Identifications that run at once.")
    var concurrency = 2

    @Option(help: "Identifications that may wait before new ones are refused with 503.")
    var queueLength = 8

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Read a password from standard input, set it as the owner's (creating account 'owner' if none), and exit.")
    var setPassword = false

    @Flag(help: .hidden)
    var clearPassword = false

    /// For `scripts/load-check` only: also serve the bare benchmark route it compares the app with. Not in --help.
    @Flag(help: .hidden)
    var benchmarkRoutes = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard (1...1024).contains(maxUploadMb) else { throw ValidationError("--max-upload-mb must be between 1 and 1024.") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64.") }
        guard (0...1000).contains(queueLength) else { throw ValidationError("--queue-length must be between 0 and 1000.") }
        guard !benchmarkRoutes || ServerConfiguration.isLoopback(host) else {
            throw ValidationError("--benchmark-routes is for load checks on a loopback address only.")
        }
        guard Hemisphere(environment: ProcessInfo.processInfo.environment) != nil else {
            throw ValidationError("\(Hemisphere.environmentVariable) must be 'north' or 'south'.")
        }
        guard OnDeviceIdentifier.timeout(environment: ProcessInfo.processInfo.environment) != nil else {
            throw ValidationError("\(OnDeviceIdentifier.timeoutEnvironmentVariable) must be a number of seconds above 0 and at most 3600.")
        }
    }

    func run() async throws {
        let console = Console()
        let directory = DataDirectory.resolve()
        if clearPassword {
            throw ServeCommandError.invalidConfiguration(
                "passwords belong to accounts now: `plantguide user remove NAME` removes a member, and "
                    + "`plantguide user passwd NAME` changes a password (the last owner stays)."
            )
        }
        do {
            try await database.withStore(directory: directory, environment: ProcessInfo.processInfo.environment) { store, sqlite in
                try await serve(store: store, sqlite: sqlite, directory: directory, console: console)
            }
        } catch let error as StoreError {
            throw ServeCommandError.invalidConfiguration(error.description)
        }
    }

    /// Serves over `store` (or, with --set-password, sets the owner's password there and returns).
    private func serve(
        store: any PlantGuideStore, sqlite: CollectionDatabase?, directory: DataDirectory, console: Console
    ) async throws {
        // Accounts live in the collection database; the single password of earlier versions becomes owner `owner`.
        let accountCount: Int
        do {
            if try sqlite?.importPasswordFile(in: directory, now: Date()) != nil {
                console.print("The web password was imported as the owner account 'owner' (log in as owner).")
            }
            accountCount = try await store.userCount()
        } catch {
            throw ServeCommandError.invalidConfiguration(error.description)
        }
        if setPassword {
            let password = (readLine(strippingNewline: true) ?? "")
            guard password.count >= 8 else { throw ServeCommandError.shortPassword }
            let hash = PasswordHash(password: password).encoded
            do {
                if let owner = try await store.users(household: HouseholdScope.home.household).first(where: { $0.role == .owner }) {
                    try await store.setPassword(user: owner.name, passwordHash: hash, now: Date())
                    console.print("The password of the owner account '\(owner.name)' was changed; its log-ins have ended.")
                } else {
                    _ = try await store.addUser(name: "owner", role: .owner, passwordHash: hash, now: Date())
                    console.print("The owner account 'owner' was created with this password (log in as owner).")
                }
            } catch {
                throw ServeCommandError.invalidConfiguration(error.description)
            }
            return
        }
        var configuration = ServerConfiguration(
            host: host, port: port, maxUploadBytes: maxUploadMb * 1_048_576, identifyConcurrency: concurrency,
            identifyQueueLength: queueLength, dataDirectory: directory.url
        )
        configuration.hasAccounts = accountCount > 0
        configuration.benchmarkRoutes = benchmarkRoutes
        configuration.pseudoLocale = ProcessInfo.processInfo.environment["PLANTGUIDE_PSEUDO_LOCALE"] == "1"
        if !configuration.isLoopback, accountCount == 0 { throw ServeCommandError.needsPassword(host: host, port: port) }
        do {
            try configuration.validate()
        } catch {
            throw ServeCommandError.invalidConfiguration(error.description)
        }
        if !configuration.isLoopback {
            console.warn(console.style(
                "warning: PlantGuide is exposed on \(host) over plain HTTP: passwords and photos cross the network "
                    + "unencrypted. Put it behind a TLS reverse proxy (Caddy or nginx, see docs/tls.md).", .yellow))
        }
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }
        // Pl@ntNet calls wait on the event loops Hummingbird serves on (NIO's shared group); the application shuts
        // the client down when it stops.
        let httpClient = ServerDependencies.makeHTTPClient()
        let app = try await buildApplication(
            configuration: configuration,
            dependencies: .live(dataDirectory: directory.url, httpClient: httpClient, store: store.scoped(to: nil)),
            onServerRunning: { address in
                console.print("PlantGuide is running at \(address)  (Ctrl-C stops it)")
            }
        )
        try await app.runService()
    }

}
