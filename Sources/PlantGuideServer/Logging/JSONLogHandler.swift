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
        var object: [String: String] = [:]
        for (key, value) in metadata { object[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { object[key] = "\(value)" }
        object["ts"] = Date().formatted(.iso8601)
        object["level"] = event.level.rawValue
        object["label"] = label
        object["msg"] = "\(event.message)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(object) else { return }
        line.append(0x0A)
        FileHandle.standardError.write(line)
    }
}
