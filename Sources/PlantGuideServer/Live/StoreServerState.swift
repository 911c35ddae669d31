import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantStore

/// Where the identification settings chosen in Settings are kept: a household's settings in the collection's store
/// (every replica reads the same), or the data directory's `web-settings.json` when no store opens.
struct PreferencesSource: Sendable {
    /// The settings now; the defaults when they cannot be read.
    var load: @Sendable () async -> ServerPreferences
    /// The settings now; `nil` when they cannot be read (a refresh then keeps what is in use rather than the defaults).
    var loadIfReadable: @Sendable () async -> ServerPreferences?
    /// Stores new settings.
    var save: @Sendable (ServerPreferences) async throws -> Void

    /// The data directory's file.
    static func file(_ directory: DataDirectory, log: @escaping @Sendable (String) -> Void) -> PreferencesSource {
        PreferencesSource(
            load: { ServerPreferences.load(directory, log: log) }, loadIfReadable: { ServerPreferences.load(directory, log: log) },
            save: { try $0.save(directory) }
        )
    }

    /// A household's settings in `store`.
    static func store(
        _ store: any ServerStateStore, household: Int64 = StorePolicy.defaultHouseholdId, now: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void
    ) -> PreferencesSource {
        PreferencesSource(
            load: {
                do {
                    return try await ServerPreferences.load(store: store, household: household)
                } catch {
                    log("the identification settings could not be read; using the defaults: \(error)")
                    return ServerPreferences()
                }
            },
            loadIfReadable: {
                do {
                    return try await ServerPreferences.load(store: store, household: household)
                } catch {
                    log("the identification settings could not be read; keeping those in use: \(error)")
                    return nil
                }
            },
            save: { preferences in try await preferences.save(store: store, household: household, now: now()) }
        )
    }
}

/// What every server replica must see, from the collection's store when one opens: the anti-forgery secret, the
/// identification settings and the calendar address. The files an older PlantGuide kept in the data directory
/// (`session-secret`, `web-settings.json`, `calendar-feed-token`) are moved into the store once and renamed
/// `*.imported`, as ``PlantNetState`` does with the Pl@ntNet files; without a store those files stay in use.
struct SharedServerState: Sendable {
    /// The anti-forgery secret; `nil` (a per-process secret) when it can be neither read nor stored.
    var sessionSecret: Data?
    /// The identification settings at start.
    var initialPreferences: ServerPreferences
    /// Where the identification settings are kept.
    var preferences: PreferencesSource
    /// The secret calendar address.
    var calendarFeed: CalendarFeed
    /// Recent identifications in the store, their photos in the data directory's `uploads` folder; `nil` (kept in
    /// memory) without a store.
    var uploads: RecentUploads?
    /// Whether the state is the store's (shared by replicas).
    var isShared: Bool

    /// The state for a data directory, in the collection's store when it opened (SQLite or PostgreSQL).
    static func live(
        directory: DataDirectory, collection: PlantCollection?, now: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void
    ) async -> SharedServerState {
        await live(directory: directory, database: collection?.store, now: now, log: log)
    }

    /// The state for a data directory: in `database` when it opened, in the directory's files otherwise.
    static func live(
        directory: DataDirectory, database: (any ServerStateStore)?, now: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void
    ) async -> SharedServerState {
        let household = StorePolicy.defaultHouseholdId
        let secretFile = directory.appending("session-secret")
        let settingsFile = ServerPreferences.file(directory)
        let tokenFile = directory.appending("calendar-feed-token")
        guard let database else {
            return SharedServerState(
                sessionSecret: LiveSettings.sessionSecret(directory, log: log),
                initialPreferences: ServerPreferences.load(directory, log: log), preferences: .file(directory, log: log),
                calendarFeed: CalendarFeed(file: tokenFile), uploads: nil, isShared: false
            )
        }
        let files = FileManager.default
        // The secret: an older server's file becomes the store's, unless another process stored one first.
        // Read again a few times before giving up: a replica with a secret of its own rejects the forms of the others.
        var secret: Data?
        let fromFile = (try? Data(contentsOf: secretFile)).flatMap { $0.count == ServerStateRules.secretLength ? $0 : nil }
        for attempt in 1...3 where secret == nil {
            do {
                secret = try await database.serverSecret(
                    named: "session", make: { fromFile ?? secureRandomBytes(ServerStateRules.secretLength) }, now: now()
                )
            } catch {
                log("the session secret was not read from the database (attempt \(attempt) of 3): \(error)")
                if attempt < 3 { try? await Task.sleep(for: .seconds(1)) }
            }
        }
        if secret != nil, files.fileExists(atPath: secretFile.path) {
            do {
                try files.moveItem(at: secretFile, to: PlantNetState.keptAside(secretFile))
            } catch {
                log("the session secret file \(secretFile.path) was not moved aside: \(error)")
            }
        }
        if secret == nil {
            log("this server uses a session secret of its own: forms opened on another replica will be refused until it restarts")
            secret = LiveSettings.sessionSecret(directory, log: log)
        }
        // The settings, when the household has none yet.
        if files.fileExists(atPath: settingsFile.path) {
            do {
                if try await database.householdSettings(household: household).isEmpty {
                    let fromFile = ServerPreferences.load(directory, log: log)
                    for (key, value) in fromFile.settings {
                        try await database.setHouseholdSetting(key, to: value, household: household, now: now())
                    }
                }
                try files.moveItem(at: settingsFile, to: PlantNetState.keptAside(settingsFile))
            } catch {
                log("the identification settings \(settingsFile.path) were not moved into the database: \(error)")
            }
        }
        // The calendar address, when the household has none yet.
        if files.fileExists(atPath: tokenFile.path) {
            do {
                if try await database.calendarToken(household: household) == nil, let token = CalendarFeed(file: tokenFile).storedToken {
                    try await database.setCalendarToken(token, household: household)
                }
                try files.moveItem(at: tokenFile, to: PlantNetState.keptAside(tokenFile))
            } catch {
                log("the calendar address \(tokenFile.path) was not moved into the database: \(error)")
            }
        }
        let initial: ServerPreferences
        do {
            initial = ServerPreferences(settings: try await database.householdSettings(household: household))
        } catch {
            log("the identification settings could not be read; using the defaults: \(error)")
            initial = ServerPreferences()
        }
        return SharedServerState(
            sessionSecret: secret, initialPreferences: initial, preferences: .store(database, household: household, now: now, log: log),
            calendarFeed: CalendarFeed(store: database),
            uploads: RecentUploads(store: database, folder: UploadFolder(directory: directory), now: now, log: log),
            isShared: true
        )
    }
}
