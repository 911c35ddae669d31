import Foundation

/// A date on the calendar with no time of day, e.g. `2026-03-29`: the unit care is planned in.
///
/// Arithmetic counts whole days on the proleptic Gregorian calendar, so it is unaffected by time
/// zones and daylight-saving changes; only turning an instant into "today" needs a time zone.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    public let dayNumber: Int

    /// The day `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        self.dayNumber = dayNumber
    }

    /// The given day; `nil` if the month or day is out of range (e.g. February 30).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        dayNumber = Self.dayNumber(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD`.
    public init?(_ text: String) {
        // Byte-wise: collections read thousands of these at once.
        var year = 0, month = 0, day = 0, length = 0
        for byte in text.utf8 {
            defer { length += 1 }
            if length == 4 || length == 7 {
                guard byte == 0x2D else { return nil }
                continue
            }
            guard length < 10, (0x30...0x39).contains(byte) else { return nil }
            let digit = Int(byte) - 0x30
            switch length {
            case ..<4: year = year * 10 + digit
            case ..<7: month = month * 10 + digit
            default: day = day * 10 + digit
            }
        }
        guard length == 10 else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day an instant falls on in a time zone.
    public init(_ date: Date, in timeZone: TimeZone) {
        let offset = timeZone.secondsFromGMT(for: date)
        let local = Int((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        dayNumber = Int((Double(local) / 86_400).rounded(.down))
    }

    /// Year, month (1–12) and day of month (1–31).
    public var components: (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil-from-days algorithm.
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The month, 1–12.
    public var month: Int { components.month }

    /// The day `days` later (earlier when negative).
    public func adding(days: Int) -> CalendarDay { CalendarDay(dayNumber: dayNumber + days) }

    /// Whole days from `other` to this day.
    public func days(since other: CalendarDay) -> Int { dayNumber - other.dayNumber }

    /// The first day of the month after this day's month.
    public var startOfNextMonth: CalendarDay {
        let (year, month, _) = components
        let nextYear = month == 12 ? year + 1 : year
        let nextMonth = month == 12 ? 1 : month + 1
        return CalendarDay(dayNumber: Self.dayNumber(year: nextYear, month: nextMonth, day: 1))
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (year, month, day) = components
        // Built by hand: String(format:) is slow, and exports write one of these per event.
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        let sign = year < 0 ? "-" : ""
        return sign + padded(abs(year), 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    }

    /// `YYYYMMDD`, the iCalendar DATE form.
    public var basicFormat: String { description.replacingOccurrences(of: "-", with: "") }

    /// Midnight at the start of this day in a time zone.
    public func start(in timeZone: TimeZone) -> Date {
        let utcMidnight = Date(timeIntervalSince1970: Double(dayNumber) * 86_400)
        // The offset at midnight may differ from the offset a few hours earlier; take it at the local
        // midnight itself by correcting once with the offset found.
        let guess = utcMidnight.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: utcMidnight)))
        return utcMidnight.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: guess)))
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool { lhs.dayNumber < rhs.dayNumber }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let day = CalendarDay(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a YYYY-MM-DD date: \(text)")
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        // Howard Hinnant's days-from-civil algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
