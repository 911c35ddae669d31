import Foundation
import GRDB
import PlantGuideCore
import PlantStore

/// Reads the timestamps GRDB writes (`YYYY-MM-DD HH:MM:SS.SSS`, UTC) without going through
/// `Calendar`, which costs microseconds per value: listing thousands of plants reads thousands.
enum DatabaseTimestamp {
    /// The timestamp in column `index`; falls back to GRDB's own conversion for other forms.
    static func date(_ row: Row, _ index: Int) -> Date {
        let value: DatabaseValue = row[index]
        if case .string(let text) = value.storage, let date = parse(text) { return date }
        return Date.fromDatabaseValue(value) ?? Date(timeIntervalSince1970: 0)
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.fraction]` (a `T` separator is accepted too) as UTC.
    static func parse(_ text: String) -> Date? {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Date? in
            guard bytes.count >= 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20 || bytes[10] == 0x54,
                  bytes[13] == 0x3A, bytes[16] == 0x3A else { return nil }
            func number(_ from: Int, _ to: Int) -> Int? {
                var value = 0
                for index in from..<to {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 7), let day = number(8, 10),
                  let hour = number(11, 13), let minute = number(14, 16), let second = number(17, 19),
                  let calendarDay = CalendarDay(year: year, month: month, day: day), hour < 24, minute < 60, second < 61
            else { return nil }
            var fraction = 0.0
            if bytes.count > 20, bytes[19] == 0x2E {
                var scale = 0.1
                for index in 20..<bytes.count {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    fraction += Double(digit) * scale
                    scale /= 10
                }
            } else if bytes.count != 19 {
                return nil
            }
            let seconds = calendarDay.dayNumber * 86_400 + hour * 3600 + minute * 60 + second
            return Date(timeIntervalSince1970: Double(seconds) + fraction)
        } ?? nil
    }
}

extension Row {
    /// The timestamp in the named column (see ``DatabaseTimestamp``).
    func timestamp(_ column: String) -> Date {
        let value: DatabaseValue = self[column]
        if case .string(let text) = value.storage, let date = DatabaseTimestamp.parse(text) { return date }
        return Date.fromDatabaseValue(value) ?? Date(timeIntervalSince1970: 0)
    }
}
