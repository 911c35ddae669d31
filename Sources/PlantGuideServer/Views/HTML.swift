import PlantGuideCore

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

    /// Escapes text for use in element content and in double-quoted attribute values (``HTMLText/escape(_:)``, which
    /// the reminder emails use too).
    public static func escape(_ text: String) -> String { HTMLText.escape(text) }

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
///
/// Letters and digits (ASCII ones, and other alphanumeric characters as they are, as Foundation's
/// `CharacterSet.alphanumerics` allows) and `-._~` stay; everything else is percent-encoded.
func urlComponent(_ text: String) -> String {
    // ASCII text (most names) is encoded here; Foundation decides about every other character.
    guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
        return text.addingPercentEncoding(withAllowedCharacters: urlComponentAllowed) ?? ""
    }
    if text.utf8.allSatisfy(isUnreservedASCII) { return text }
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 8)
    for byte in text.utf8 {
        if isUnreservedASCII(byte) {
            out.append(byte)
        } else {
            out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        }
    }
    return String(decoding: out, as: UTF8.self)
}

private let urlComponentAllowed: CharacterSet = {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return allowed
}()

private func isUnreservedASCII(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        true
    default: false
    }
}

import Foundation
