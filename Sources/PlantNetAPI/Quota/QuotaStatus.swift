import Foundation

/// How close the daily quota is to running out.
public enum QuotaLevel: String, Sendable, Codable, Hashable, CaseIterable {
    /// No request made since the last reset, so the count is not known yet.
    case unknown
    /// More than 100 left.
    case ok
    /// 100 or fewer left.
    case low
    /// 50 or fewer left.
    case veryLow
    /// 10 or fewer left.
    case critical
    /// None left (or the service answered 429): calls are blocked until the reset.
    case exhausted

    /// The level for a remaining count.
    public init(remaining: Int?, blocked: Bool = false) {
        guard !blocked else { self = .exhausted; return }
        guard let remaining else { self = .unknown; return }
        switch remaining {
        case ...0: self = .exhausted
        case ...10: self = .critical
        case ...50: self = .veryLow
        case ...100: self = .low
        default: self = .ok
        }
    }

    /// The level as people read it, the same on the command line and the web: "ok", "low", "very low",
    /// "critical", "exhausted" or "unknown". The raw value stays the JSON name.
    public var label: String {
        switch self {
        case .unknown: "unknown"
        case .ok: "ok"
        case .low: "low"
        case .veryLow: "very low"
        case .critical: "critical"
        case .exhausted: "exhausted"
        }
    }

    /// Whether a person should be told (100, 50 and 10 left, and exhausted).
    public var isWarning: Bool {
        switch self {
        case .low, .veryLow, .critical, .exhausted: true
        case .unknown, .ok: false
        }
    }
}

/// The quota as last seen, as `plantguide quota --json` prints it: `{remaining, resetsAt, level}`.
public struct QuotaStatus: Sendable, Codable, Hashable {
    /// Identification requests left today; `nil` until the first answer after a reset.
    public var remaining: Int?
    /// When the quota resets (the next 00:00 UTC, or the service's own reset time after a 429).
    public var resetsAt: Date
    /// How close to the limit.
    public var level: QuotaLevel

    /// Creates a status.
    public init(remaining: Int?, resetsAt: Date, level: QuotaLevel) {
        self.remaining = remaining
        self.resetsAt = resetsAt
        self.level = level
    }

    /// Whether API calls are blocked until `resetsAt`.
    public var isBlocked: Bool { level == .exhausted }

    private enum CodingKeys: String, CodingKey { case remaining, resetsAt, level }

    // `remaining` is written as `null` rather than left out, so the JSON always has its three keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(remaining, forKey: .remaining)
        try container.encode(resetsAt, forKey: .resetsAt)
        try container.encode(level, forKey: .level)
    }
}
