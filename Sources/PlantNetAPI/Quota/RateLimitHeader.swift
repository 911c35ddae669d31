import Foundation

/// The `RateLimit` answer header: `r` requests remaining, `t` seconds until the window resets.
///
/// Accepts the structured-field form (`"default";r=480;t=3600`) and the older list form
/// (`limit=500, remaining=480, reset=3600`).
public struct RateLimitHeader: Sendable, Hashable {
    /// Requests remaining.
    public var remaining: Int?
    /// Seconds until the quota resets.
    public var secondsUntilReset: Int?

    /// Parses a header value; `nil` when it carries neither number.
    public init?(_ value: String) {
        var remaining: Int?
        var seconds: Int?
        for item in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let number = Int(pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
                  number >= 0 else { continue }
            switch pair[0].lowercased() {
            case "r", "remaining": remaining = number
            case "t", "reset": seconds = number
            default: break
            }
        }
        guard remaining != nil || seconds != nil else { return nil }
        self.remaining = remaining
        secondsUntilReset = seconds
    }
}

/// The daily quota window: it resets at 00:00 UTC.
public enum QuotaCalendar {
    /// The first 00:00 UTC strictly after `date`.
    public static func nextReset(after date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        let startOfDay = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 1, to: startOfDay) ?? startOfDay.addingTimeInterval(86_400)
    }
}
