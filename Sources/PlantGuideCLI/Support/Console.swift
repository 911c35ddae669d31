import Foundation

/// Writes the command line's output: text for people (with colour on a terminal), JSON for programs.
struct Console: Sendable {
    /// Whether ANSI colours are used: only on a terminal, and never when `NO_COLOR` is set.
    let usesColor: Bool

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        usesColor = isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    func print(_ line: String = "") {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Prints a value as pretty JSON with sorted keys, so output is stable and diff-friendly.
    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(value)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }

    /// Writes a line to standard error (warnings, progress).
    func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    func style(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }
}
