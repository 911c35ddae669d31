import AsyncHTTPClient
import Foundation
import NIOPosix
import PlantCatalog
import PlantHTTP
import PlantReminders

/// What the server can do, as optional capabilities. A page whose capability is `nil` says plainly that
/// the feature is not available yet and how to enable it, instead of failing or pretending.
public struct ServerDependencies: Sendable {
    /// The bundled catalog (Browse, enrichment of results).
    public var catalog: PlantCatalog?
    /// Identification from photos, as it is now: saving a Pl@ntNet key in Settings can replace it, so read it
    /// per request.
    public var identification: IdentificationCapability? { currentIdentification.capability }
    /// Holds ``identification``; the live server replaces its capability when the key changes.
    public let currentIdentification: CurrentIdentification
    /// The plant collection.
    public var collection: CollectionCapability?
    /// Care schedules.
    public var care: CareCapability?
    /// Care advice for catalog plants, with the server's hemisphere.
    public var careAdvice: CareAdviceCapability?
    /// API key, quota, cache and model facts.
    public var settings: SettingsCapability?
    /// Installing on-device models from Settings; `nil` when this server cannot.
    public var modelInstalls: ModelInstallCapability?
    /// The log of identifications and its statistics (shown in Settings); nothing is logged when `nil`.
    public var statistics: StatisticsCapability?
    /// The secret calendar address for phone calendars; `nil` when the server offers none.
    public var calendarFeed: CalendarFeed?
    /// The accounts and their log-ins (in the collection database). Without it, a configured single password is
    /// checked and log-ins are kept in memory.
    public var accounts: AccountDirectory?
    /// The anti-forgery secret, kept so forms stay valid across restarts; a random one per process when `nil`.
    public var sessionSecret: Data?
    /// The re-check queue; `nil` without a collection.
    public var recheck: RecheckCapability?
    /// Work that keeps this server in step with other replicas (settings saved there, expired uploads), run in the
    /// background every ``ServerRefresh/interval``; `nil` when there is none.
    public var refresh: ServerRefresh?
    /// Sends each reminder channel's daily digest in the background; `nil` when the store keeps no reminders.
    public var reminders: ReminderRunner?
    /// Recent identifications, in the collection's store when there is one (shared by replicas); in memory when `nil`.
    var recentUploads: RecentUploads?
    /// The clock.
    public var now: @Sendable () -> Date
    /// The HTTP client the server owns for its outgoing calls (Pl@ntNet, reference photos), if it owns one: the
    /// application runs on its event loops and shuts it down when it stops. `nil` when the calls use a client that
    /// outlives the server (tests, or none made).
    public var ownedHTTPClient: HTTPClient?

    /// Creates dependencies; anything left out is shown as not available.
    public init(
        catalog: PlantCatalog? = nil, identification: IdentificationCapability? = nil,
        collection: CollectionCapability? = nil, care: CareCapability? = nil, careAdvice: CareAdviceCapability? = nil,
        settings: SettingsCapability? = nil, calendarFeed: CalendarFeed? = nil, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.calendarFeed = calendarFeed
        self.catalog = catalog
        currentIdentification = CurrentIdentification(identification)
        self.collection = collection
        self.care = care
        self.careAdvice = careAdvice
        self.settings = settings
        self.now = now
    }
}

extension ServerDependencies {
    /// A new client for the server's outgoing calls, on the event loops the application serves on (NIO's shared
    /// group, Hummingbird's default), to pass to ``live(dataDirectory:environment:logger:httpClient:)``; the
    /// application shuts it down when it stops.
    public static func makeHTTPClient() -> HTTPClient {
        OutgoingHTTP.makeClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    }
}
