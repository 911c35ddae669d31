import Foundation
import PlantGuideCore
import PlantIdentification
import PlantNetAPI

extension PlantNetOrgan {
    /// The organs the web app offers, in the form's order: Pl@ntNet's but "other". Pl@ntNet's rules
    /// (``PlantNetAPI/PlantNetRequestRules/validate(organs:)``) apply to them as to the command line's.
    public static let webChoices: [PlantNetOrgan] = [.auto, .leaf, .flower, .fruit, .bark, .habit]

    /// The organ a form or API field names, when the web app offers it.
    public init?(webValue: String) {
        guard let organ = PlantNetOrgan(rawValue: webValue), Self.webChoices.contains(organ) else { return nil }
        self = organ
    }

    /// Label for the form.
    public var label: String {
        switch self {
        case .auto: "Let PlantGuide decide"
        case .leaf: "Leaf"
        case .flower: "Flower"
        case .fruit: "Fruit"
        case .bark: "Bark"
        case .habit: "Whole plant"
        case .other: "Other"
        }
    }
}

/// Which identifier to ask: the web form's three choices, and the command line's strategies, so the API takes the names
/// `plantguide identify --strategy` takes.
public enum IdentifyStrategy: String, Sendable, CaseIterable, Codable {
    /// The best available: the API when online with quota left, the on-device model otherwise.
    case auto
    /// Only the on-device model (works offline, private).
    case onDevice = "on-device"
    /// Only Pl@ntNet (needs an API key and a connection); the command line calls it `api`.
    case plantNet = "plantnet"
    /// The device first, Pl@ntNet only when the device is unsure (what `auto` is when a model is installed).
    case onDeviceFirst = "on-device-first"
    /// Both at once: Pl@ntNet's answer is preferred, and both are answered.
    case parallel

    /// The choices the Identify form and Settings offer.
    public static let formChoices: [IdentifyStrategy] = [.auto, .onDevice, .plantNet]

    /// Every name a request may give, in the order the errors and the API document list them.
    public static let names = allCases.map(\.rawValue) + [IdentificationStrategy.api.rawValue]

    /// The strategy a form or API field names: these names, or the command line's `api` for Pl@ntNet only.
    public init?(name: String) {
        if name == IdentificationStrategy.api.rawValue {
            self = .plantNet
        } else {
            self.init(rawValue: name)
        }
    }

    /// The hybrid identifier's strategy for this choice; `auto` depends on whether a model is installed.
    public func identificationStrategy(hasDevice: Bool) -> IdentificationStrategy {
        switch self {
        case .auto: hasDevice ? .onDeviceFirst : .api
        case .onDevice: .onDevice
        case .plantNet: .api
        case .onDeviceFirst: .onDeviceFirst
        case .parallel: .parallel
        }
    }

    /// Label for the form.
    public var label: String {
        switch self {
        case .auto: "Best available"
        case .onDevice: "On this device only"
        case .plantNet: "Pl@ntNet only"
        case .onDeviceFirst: "This device first, Pl@ntNet when unsure"
        case .parallel: "Both at once"
        }
    }
}

/// One identification request: photos of one plant.
public struct IdentifyRequest: Sendable {
    /// Raw photo bytes, already checked to be images.
    public var photos: [Data]
    /// What each photo shows, in the order of `photos` (`.auto` where not given).
    public var organs: [PlantNetOrgan]
    /// Which identifier to use.
    public var strategy: IdentifyStrategy
    /// Number of candidates wanted.
    public var top: Int

    /// Creates a request; `organs` are per photo, and one organ alone applies to every photo.
    public init(photos: [Data], organs: [PlantNetOrgan] = [], strategy: IdentifyStrategy = .auto, top: Int = 10) {
        self.photos = photos
        self.organs = photos.indices.map { index in
            organs.count == 1 ? organs[0] : index < organs.count ? organs[index] : .auto
        }
        self.strategy = strategy
        self.top = top
    }
}

/// The answer to an identification request, with what the page needs to explain it. Codable, so a recent upload can
/// keep it in the store for the results page on any replica.
public struct IdentifyOutcome: Sendable, Codable {
    /// The identification.
    public var identification: Identification
    /// Whether the online service could not be reached and the device answered instead.
    public var offline: Bool
    /// Pl@ntNet identifications left today, when known.
    public var quotaRemaining: Int?
    /// Remarks worth showing, e.g. why one of two identifiers did not answer.
    public var notes: [String]
    /// Catalog plants to offer when the answer is uncertain ("did you mean…"), none repeating a candidate.
    public var suggestions: [CatalogPlant]
    /// Why the answer should be checked with Pl@ntNet later (set only when Pl@ntNet is configured).
    public var recheckReason: RecheckReason?
    /// This identification as the statistics log it, when the identifier says how it ran; the route adds the
    /// time spent waiting and in all.
    public var run: IdentificationRun?
    /// The strategy that produced the answer (`nil` in outcomes kept before it was recorded).
    public var strategy: IdentificationStrategy?
    /// The device's own answer and Pl@ntNet's, when each answered.
    public var onDevice: Identification?
    /// Pl@ntNet's own answer (or its cached copy), when it answered.
    public var online: Identification?
    /// Whether Pl@ntNet said "Species not found" (`nil` counts as no).
    public var notAPlant: Bool?
    /// How close the day's Pl@ntNet quota is to running out, when Pl@ntNet is set up.
    public var quotaLevel: QuotaLevel?

    /// Creates an outcome.
    public init(
        identification: Identification, offline: Bool = false, quotaRemaining: Int? = nil, notes: [String] = [],
        suggestions: [CatalogPlant] = [], recheckReason: RecheckReason? = nil, run: IdentificationRun? = nil,
        strategy: IdentificationStrategy? = nil, onDevice: Identification? = nil, online: Identification? = nil,
        notAPlant: Bool = false, quotaLevel: QuotaLevel? = nil
    ) {
        self.strategy = strategy
        self.onDevice = onDevice
        self.online = online
        self.notAPlant = notAPlant
        self.quotaLevel = quotaLevel
        self.recheckReason = recheckReason
        self.run = run
        self.identification = identification
        self.offline = offline
        self.quotaRemaining = quotaRemaining
        self.notes = notes
        self.suggestions = suggestions
    }
}

/// The server's own view of whether Pl@ntNet can be reached (not the browser's connection).
public struct OnlineStatus: Sendable, Hashable {
    /// Whether identifications will ask Pl@ntNet now.
    public var reachable: Bool
    /// When the last connection failed, unless an answer came since.
    public var lastFailure: Date?
    /// Until when identifications skip Pl@ntNet after a failure.
    public var retryAfter: Date?

    /// Creates a status.
    public init(reachable: Bool, lastFailure: Date? = nil, retryAfter: Date? = nil) {
        self.reachable = reachable
        self.lastFailure = lastFailure
        self.retryAfter = retryAfter
    }
}

/// Pl@ntNet's reachability as the server sees it, and a way to check again at once.
public struct OnlineConnection: Sendable {
    /// The current view.
    public var status: @Sendable () -> OnlineStatus
    /// Asks Pl@ntNet now (no identification, no quota) and returns the new view.
    public var check: @Sendable () async -> OnlineStatus

    /// Creates the connection view.
    public init(status: @escaping @Sendable () -> OnlineStatus, check: @escaping @Sendable () async -> OnlineStatus) {
        self.status = status
        self.check = check
    }
}

/// Identifies plants from photos: the on-device model, Pl@ntNet, or both.
public struct IdentificationCapability: Sendable {
    /// What is behind it, for the home and settings pages, e.g. "On-device model resnet18 (1081 species)".
    public var summary: String
    /// Strategies that can work with what is installed.
    public var strategies: [IdentifyStrategy]
    /// The strategy the form preselects (one of `strategies`).
    public var defaultStrategy: IdentifyStrategy
    /// Runs one identification.
    public var identify: @Sendable (IdentifyRequest) async throws -> IdentifyOutcome
    /// A kept reference photo's bytes by its ``PlantGuideCore/ReferenceImage/localID``, or `nil`.
    public var referencePhoto: @Sendable (_ id: String) -> Data?
    /// Pl@ntNet's reachability, when Pl@ntNet is configured.
    public var online: OnlineConnection?
    /// Pl@ntNet's disease service, when a key is set.
    public var diagnosis: DiagnosisCapability?
    /// Asks Pl@ntNet about an identification from the re-check queue, when Pl@ntNet is configured.
    public var recheck: (@Sendable (_ photos: [Data], _ organs: [String]) async -> RecheckAnswer)?
    /// The Pl@ntNet quota now, for the re-check queue's reserve.
    public var quota: (@Sendable () async -> (remaining: Int?, blocked: Bool))?
    /// The on-device model that re-scores saved identifications (its name, and a classifier of one photo), when one is
    /// loaded.
    public var rescoreModel: (name: String, classify: @Sendable (Data) async throws -> Identification)?
    /// The loaded on-device model's photo embedder, for indexing the collection's photos (recognising your plants).
    public var embedder: PhotoEmbedder?

    /// Creates the capability from its implementation.
    public init(
        summary: String, strategies: [IdentifyStrategy], defaultStrategy: IdentifyStrategy = .auto,
        referencePhoto: @escaping @Sendable (_ id: String) -> Data? = { _ in nil }, online: OnlineConnection? = nil,
        identify: @escaping @Sendable (IdentifyRequest) async throws -> IdentifyOutcome
    ) {
        self.referencePhoto = referencePhoto
        self.online = online
        self.summary = summary
        self.strategies = strategies
        self.defaultStrategy = strategies.contains(defaultStrategy) ? defaultStrategy : strategies.first ?? .auto
        self.identify = identify
    }
}

/// "Something wrong?": Pl@ntNet's disease service as the web app uses it.
public struct DiagnosisCapability: Sendable {
    /// Prepares and sends photos of one plant (each with its organ); the answer, with the SHA-256 of each original
    /// photo (the results page's address names them).
    public var diagnose: @Sendable (_ photos: [Data], _ organs: [PlantNetOrgan], _ language: String) async throws
        -> (answer: DiagnosisAnswer, sha256s: [String])
    /// The kept answer for these photos, when answers are kept (a results page is then read without asking again).
    public var cached: (@Sendable (_ sha256s: [String], _ organs: [PlantNetOrgan], _ language: String) async -> DiagnosisAnswer?)?
    /// Sends the photos of a health record that waited for Pl@ntNet, for the re-check queue.
    public var waiting: (@Sendable (_ photos: [Data], _ organs: [String], _ language: String) async -> DiagnosisRecheckAnswer)?

    /// Creates the capability.
    public init(
        diagnose: @escaping @Sendable (_ photos: [Data], _ organs: [PlantNetOrgan], _ language: String) async throws
            -> (answer: DiagnosisAnswer, sha256s: [String]),
        cached: (@Sendable (_ sha256s: [String], _ organs: [PlantNetOrgan], _ language: String) async -> DiagnosisAnswer?)?
    ) {
        self.diagnose = diagnose
        self.cached = cached
    }
}
