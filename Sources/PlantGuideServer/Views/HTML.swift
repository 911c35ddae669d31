/// A fragment of HTML. Interpolated strings are escaped; interpolated `HTML` is inserted as is, so a page
/// is built from trusted markup and untrusted text without a way to mix them up by accident.
public struct HTML: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The markup.
    public let markup: String

    /// Wraps markup that is already safe.
    public init(unsafeMarkup: String) { markup = unsafeMarkup }

    public init(stringLiteral value: String) { markup = value }

    public init(stringInterpolation: StringInterpolation) { markup = stringInterpolation.output }

    public var description: String { markup }

    /// Nothing.
    public static let empty = HTML(unsafeMarkup: "")

    /// Escapes text for use in element content and in double-quoted attribute values.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Builds HTML from literal markup and escaped values.
    public struct StringInterpolation: StringInterpolationProtocol {
        var output = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            output.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: String) { output += literal }
        public mutating func appendInterpolation(_ text: String) { output += HTML.escape(text) }
        public mutating func appendInterpolation(_ html: HTML) { output += html.markup }
        public mutating func appendInterpolation(_ number: Int) { output += String(number) }
        public mutating func appendInterpolation(_ fragments: [HTML]) {
            for fragment in fragments { output += fragment.markup }
        }
        /// Inserts `html` only when `condition` holds.
        public mutating func appendInterpolation(_ html: HTML, if condition: Bool) {
            if condition { output += html.markup }
        }
    }
}

extension Sequence where Element == HTML {
    /// The fragments one after another.
    func joined() -> HTML { HTML(unsafeMarkup: map(\.markup).joined()) }
}

/// Percent-encodes a value for use in a URL path segment or query value.
func urlComponent(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
}

import Foundation
