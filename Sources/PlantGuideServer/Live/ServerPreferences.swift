import Foundation
import PlantGuideCore
import PlantStore

/// How identification behaves, chosen in Settings and kept as the household's settings in the collection's store
/// (`identify.strategy`, `identify.threshold`; in the data directory's `web-settings.json` when no store opens): the
/// strategy the Identify form preselects, the confidence below which the device asks Pl@ntNet and answers are
/// "not sure", and which installed on-device model answers.
public struct ServerPreferences: Codable, Sendable, Hashable {
    /// The strategy the form preselects.
    public var defaultStrategy: IdentifyStrategy = .auto
    /// Below this the on-device answer asks Pl@ntNet (best available) and is shown as uncertain.
    public var threshold: Double = 0.7

    /// The thresholds Settings offers.
    public static let thresholds: [Double] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]

    /// Creates preferences (the defaults when nothing is given).
    public init(defaultStrategy: IdentifyStrategy = .auto, threshold: Double = 0.7) {
        self.defaultStrategy = defaultStrategy
        self.threshold = threshold
    }

    static func file(_ directory: DataDirectory) -> URL { directory.appending("web-settings.json") }

    /// The stored preferences; the defaults when there are none or the file is damaged (a damaged file is logged
    /// and replaced on the next save).
    static func load(_ directory: DataDirectory, log: @Sendable (String) -> Void = { _ in }) -> ServerPreferences {
        guard let data = try? Data(contentsOf: file(directory)) else { return ServerPreferences() }
        guard var preferences = try? JSONDecoder().decode(ServerPreferences.self, from: data) else {
            log("web-settings.json is damaged; using the default settings")
            return ServerPreferences()
        }
        preferences.threshold = min(max(preferences.threshold, thresholds[0]), thresholds[thresholds.count - 1])
        return preferences
    }

    func save(_ directory: DataDirectory) throws {
        try directory.create()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: Self.file(directory), options: .atomic)
    }
}

extension ServerPreferences {
    /// The preferences a household's settings in the store give (the defaults for what is not set, or not valid).
    init(settings: [HouseholdSettingKey: String]) {
        self.init()
        if let strategy = settings[.identifyStrategy].flatMap(IdentifyStrategy.init(rawValue:)) { defaultStrategy = strategy }
        if let threshold = settings[.identifyThreshold].flatMap(Double.init), threshold.isFinite {
            self.threshold = min(max(threshold, Self.thresholds[0]), Self.thresholds[Self.thresholds.count - 1])
        }
    }

    /// These preferences as a household's settings in the store.
    var settings: [HouseholdSettingKey: String] {
        [.identifyStrategy: defaultStrategy.rawValue, .identifyThreshold: String(threshold)]
    }

    /// A household's preferences in the store.
    static func load(store: any ServerStateStore, household: Int64) async throws(StoreError) -> ServerPreferences {
        ServerPreferences(settings: try await store.householdSettings(household: household))
    }

    /// Stores these preferences as a household's settings.
    func save(store: any ServerStateStore, household: Int64, now: Date) async throws(StoreError) {
        for (key, value) in settings.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try await store.setHouseholdSetting(key, to: value, household: household, now: now)
        }
    }
}
