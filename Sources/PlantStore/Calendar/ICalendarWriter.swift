import Foundation
import PlantGuideCore

/// Writes upcoming care tasks as an iCalendar (RFC 5545) file of all-day events, each with an alarm (VALARM) at the
/// reminder time of day, so that phone calendars alert instead of only listing the day.
///
/// Each plant-and-task pair has one UID (`<plant uuid>-<task>@plantguide`), so when the file is
/// fetched again after a task is done, a subscribed calendar moves the event instead of adding a
/// second one. Lines end in CRLF and are folded at 75 octets without splitting a UTF-8 character.
public struct ICalendarWriter: Sendable {
    /// Stamped on every event as DTSTAMP.
    public var now: Date
    /// The local time of day each event's alarm goes off, in minutes after midnight (480: 08:00); `nil`: no alarm.
    public var alarmMinute: Int?

    /// A writer stamping events with `now`, alarms at `alarmMinute` (default 08:00).
    public init(now: Date, alarmMinute: Int? = 480) {
        self.now = now
        self.alarmMinute = alarmMinute.map { min(max($0, 0), 1_439) }
    }

    /// The calendar text for `tasks`; overdue tasks are placed on `today`.
    public func calendar(for tasks: [ScheduledTask], today: CalendarDay) -> String {
        var lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//PlantGuide//Care schedule//EN",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
            "X-WR-CALNAME:PlantGuide care",
        ]
        let stamp = Self.utcStamp(now)
        for task in tasks {
            guard let due = task.dueOn else { continue }
            let day = max(due, today)
            var description = "\(task.task.rawValue.capitalized) \(task.plantName) (plant #\(task.plantId))."
            if due < today { description += "\nOverdue since \(due)." }
            if let last = task.lastDone { description += "\nLast \(task.task.pastTense) \(last)." }
            lines += [
                "BEGIN:VEVENT",
                "UID:\(Self.uid(for: task))",
                "DTSTAMP:\(stamp)",
                "DTSTART;VALUE=DATE:\(day.basicFormat)",
                "DTEND;VALUE=DATE:\(day.adding(days: 1).basicFormat)",
                "SUMMARY:\(Self.escape("\(task.task.rawValue.capitalized) \(task.plantName)"))",
                "DESCRIPTION:\(Self.escape(description))",
            ]
            if let room = task.room { lines.append("LOCATION:\(Self.escape(room))") }
            lines += ["CATEGORIES:\(task.task.rawValue)", "TRANSP:TRANSPARENT"]
            if let alarmMinute {
                // An all-day event starts at the day's local midnight, so the alarm is that many hours after its start.
                lines += [
                    "BEGIN:VALARM", "ACTION:DISPLAY",
                    "DESCRIPTION:\(Self.escape("\(task.task.rawValue.capitalized) \(task.plantName)"))",
                    "TRIGGER;RELATED=START:\(Self.duration(minutes: alarmMinute))", "END:VALARM",
                ]
            }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(Self.fold).joined(separator: "\r\n") + "\r\n"
    }

    /// A non-negative RFC 5545 duration of whole minutes: `PT8H`, `PT7H30M`, `PT0S`.
    static func duration(minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        if hours == 0 && rest == 0 { return "PT0S" }
        return "PT" + (hours > 0 ? "\(hours)H" : "") + (rest > 0 ? "\(rest)M" : "")
    }

    /// The stable UID of a plant's task.
    public static func uid(for task: ScheduledTask) -> String {
        "\(task.plantUUID)-\(task.task.rawValue)@plantguide"
    }

    /// Escapes TEXT values (RFC 5545 §3.3.11): backslash, semicolon, comma and newlines.
    public static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n", "\r\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// Folds a content line into pieces of at most 75 octets; continuation lines start with a space.
    public static func fold(_ line: String) -> String {
        var pieces: [String] = []
        var current = "", currentOctets = 0
        var limit = 75
        for scalar in line.unicodeScalars {
            let octets = String(scalar).utf8.count
            if currentOctets + octets > limit {
                pieces.append(current)
                current = ""
                currentOctets = 0
                limit = 74  // the leading space of a continuation line counts toward its 75
            }
            current.unicodeScalars.append(scalar)
            currentOctets += octets
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n ")
    }

    private static func utcStamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = CalendarDay(dayNumber: Int((Double(seconds) / 86_400).rounded(.down)))
        let rest = seconds - day.dayNumber * 86_400
        return String(format: "%@T%02d%02d%02dZ", day.basicFormat, rest / 3600, rest % 3600 / 60, rest % 60)
    }
}
