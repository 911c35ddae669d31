import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one JSON object per log line to standard error:
/// `{"ts":"…","level":"info","label":"plantguide","msg":"request","path":"/browse",…}`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String

    /// Creates a handler.
    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        FileHandle.standardError.write(Data(line(event, date: Date())))
    }

    /// The line for `event` logged at `date`, newline included: keys sorted, event metadata over the handler's.
    ///
    /// Written by hand into bytes (no JSONEncoder, no Foundation date formatter, no dictionary): the server writes
    /// one per request, so it must cost a small part of a request.
    func line(_ event: LogEvent, date: Date) -> [UInt8] {
        var fields: [(key: String, value: String)] = []
        fields.reserveCapacity(metadata.count + (event.metadata?.count ?? 0) + 4)
        for (key, value) in metadata where event.metadata?[key] == nil { fields.append((key, "\(value)")) }
        for (key, value) in event.metadata ?? [:] { fields.append((key, "\(value)")) }
        // Reserved keys win over metadata of the same name, as they always have.
        fields.removeAll { $0.key == "ts" || $0.key == "level" || $0.key == "label" || $0.key == "msg" }
        fields.append(("ts", Self.timestamp(date)))
        fields.append(("level", event.level.rawValue))
        fields.append(("label", label))
        fields.append(("msg", "\(event.message)"))
        fields.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        var line: [UInt8] = [UInt8(ascii: "{")]
        line.reserveCapacity(256)
        for (index, field) in fields.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            Self.appendQuoted(field.key, to: &line)
            line.append(UInt8(ascii: ":"))
            Self.appendQuoted(field.value, to: &line)
        }
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    /// A JSON string literal for `text`.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal: quotes, backslashes and control characters escaped, the rest as is.
    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `date` in UTC to the second, as ISO 8601: `2026-05-28T14:05:09Z` (what `Date.formatted(.iso8601)` gives).
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var out: [UInt8] = []
        out.reserveCapacity(20)
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        out.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        out.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        out.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        out.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        out.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }
}
