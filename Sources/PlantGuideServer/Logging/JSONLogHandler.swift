import Foundation
import Logging

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
        var fields: [String: String] = [:]
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        fields["ts"] = Date().formatted(.iso8601)
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["msg"] = "\(event.message)"
        // Written by hand (sorted keys, escaped strings): a JSONEncoder per line costs more than the request.
        var line = "{"
        for (index, key) in fields.keys.sorted().enumerated() {
            if index > 0 { line += "," }
            line += Self.quoted(key) + ":" + Self.quoted(fields[key] ?? "")
        }
        line += "}\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// A JSON string literal for `text`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                out += String(format: "\\u%04x", control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
