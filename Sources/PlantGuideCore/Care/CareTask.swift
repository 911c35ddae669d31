/// A recurring care task. The raw values are the names used on the command line and in files.
public enum CareTask: String, Sendable, Codable, Hashable, CaseIterable, Comparable {
    case water
    case fertilize
    case repot
    case mist
    case prune

    /// The past-tense word for a logged event: "watered", "fertilised", …
    public var pastTense: String {
        switch self {
        case .water: "watered"
        case .fertilize: "fertilised"
        case .repot: "repotted"
        case .mist: "misted"
        case .prune: "pruned"
        }
    }

    public static func < (lhs: CareTask, rhs: CareTask) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}

/// Which half of the world the plants live in; it decides which months are winter.
public enum Hemisphere: String, Sendable, Codable, Hashable, CaseIterable {
    case north
    case south

    /// Whether `month` (1–12) is in the rest season: October–March in the north, April–September in
    /// the south. Houseplants grow slower then and need less water and no fertiliser.
    public func isRestSeason(month: Int) -> Bool {
        let northernRest = month >= 10 || month <= 3
        return self == .north ? northernRest : !northernRest
    }

    /// The environment variable that names the hemisphere, for the command line and the web server alike.
    public static let environmentVariable = "PLANTGUIDE_HEMISPHERE"

    /// The hemisphere named by ``environmentVariable`` in `environment`: north when it is unset or empty,
    /// `nil` when it names neither (`north` or `south`, any case), so the caller can refuse to start.
    public init?(environment: [String: String]) {
        guard let value = environment[Self.environmentVariable], !value.isEmpty else {
            self = .north
            return
        }
        self.init(rawValue: value.lowercased())
    }
}
