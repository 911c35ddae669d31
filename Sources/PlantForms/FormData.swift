import Foundation
import PlantGuideCore

/// Why a submitted form could not be read.
public enum FormError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body or its `Content-Type` is malformed (no boundary, a part without a name, a body cut short).
    case malformed(String)
    /// A part of the form is over its limit (too many fields, a text field too long).
    case tooLarge(String)

    /// The sentence for the person who sent the form.
    public var description: String {
        switch self {
        case .malformed(let message), .tooLarge(let message): message
        }
    }
}

/// A submitted form: text fields and uploaded files, from `application/x-www-form-urlencoded` or
/// `multipart/form-data`.
public struct FormData: Sendable {
    /// One uploaded file.
    public struct File: Sendable {
        /// The form field it came in.
        public var field: String
        /// The name the browser gave (never trusted for anything but display).
        public var filename: String
        /// The bytes.
        public var data: Data
    }

    /// Text fields in order; a name may repeat.
    public var fields: [(name: String, value: String)] = []
    /// Files in order.
    public var files: [File] = []

    /// The first value of a field.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// What kind of form a `Content-Type` announces, checked before any of the body is read.
    public enum Encoding: Equatable, Sendable {
        /// `application/x-www-form-urlencoded`.
        case urlEncoded
        /// `multipart/form-data` with its boundary.
        case multipart(boundary: String)
    }

    /// The form encoding of a `Content-Type`; `nil` when it is neither form encoding.
    /// - Throws: ``FormError/malformed(_:)`` for a multipart type without a boundary or with one
    ///   longer than ``PlantGuideCore/InputLimits/boundaryCharacters``.
    public static func encoding(of contentType: String?) throws(FormError) -> Encoding? {
        guard let contentType else { return nil }
        let lowered = contentType.lowercased()
        if lowered.hasPrefix("application/x-www-form-urlencoded") { return .urlEncoded }
        guard lowered.hasPrefix("multipart/form-data") else { return nil }
        guard let boundary = Self.parameter("boundary", in: contentType) else {
            throw .malformed("The multipart form has no boundary.")
        }
        guard boundary.utf8.count <= InputLimits.boundaryCharacters else {
            throw .malformed("The multipart boundary is longer than \(InputLimits.boundaryCharacters) characters (RFC 2046).")
        }
        return .multipart(boundary: boundary)
    }

    /// Parses a body according to its `Content-Type`; `nil` when the type is neither form encoding.
    ///
    /// Time is linear in the body. Forms with more than ``PlantGuideCore/InputLimits/formParts`` parts or a
    /// text field over ``PlantGuideCore/InputLimits/formFieldBytes`` are refused (``FormError/tooLarge(_:)``).
    public static func parse(contentType: String?, body: Data) throws(FormError) -> FormData? {
        guard let encoding = try encoding(of: contentType) else { return nil }
        return try parse(encoding, body: body)
    }

    /// Parses a body of a known form encoding.
    public static func parse(_ encoding: Encoding, body: Data) throws(FormError) -> FormData {
        switch encoding {
        case .urlEncoded: try FormData(checkedURLEncoded: String(decoding: body, as: UTF8.self))
        case .multipart(let boundary): try MultipartParser(boundary: boundary).parse(body)
        }
    }

    /// Parses `a=1&b=two+words`.
    public init(urlEncoded text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            fields.append(Self.decodePair(pair))
        }
    }

    /// Parses `a=1&b=two+words`, refusing more parts or longer fields than the limits.
    init(checkedURLEncoded text: String) throws(FormError) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard fields.count < InputLimits.formParts else { throw Self.tooManyParts }
            guard pair.utf8.count <= InputLimits.formFieldBytes * 3 else { throw Self.fieldTooLarge }  // %XX triples a byte
            let field = Self.decodePair(pair)
            guard field.value.utf8.count <= InputLimits.formFieldBytes else { throw Self.fieldTooLarge }
            fields.append(field)
        }
    }

    private static func decodePair(_ pair: Substring) -> (name: String, value: String) {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let decode = { (raw: Substring) -> String in
            String(raw).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
        }
        return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
    }

    static let tooManyParts = FormError.tooLarge("The form has more than \(InputLimits.formParts) fields.")
    static let fieldTooLarge = FormError.tooLarge(
        "A form field is larger than the limit of \(InputLimits.bytes(InputLimits.formFieldBytes))."
    )

    /// An empty form.
    public init() {}

    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }
}

/// Splits a `multipart/form-data` body (RFC 7578) held in memory; the body's size is already bounded.
///
/// Each delimiter is found with a Knuth–Morris–Pratt scan, so the whole parse reads every byte a
/// bounded number of times whatever the boundary and the body hold.
struct MultipartParser {
    let boundary: String

    func parse(_ body: Data) throws(FormError) -> FormData {
        // Read in place: a photo upload is megabytes, and a copy would double the memory it holds.
        try body.withUnsafeBytes { bytes in Result { () throws(FormError) in try parse(bytes) } }.get()
    }

    private func parse(_ bytes: UnsafeRawBufferPointer) throws(FormError) -> FormData {
        let opening = ByteFinder(Array("--\(boundary)".utf8))
        var form = FormData()
        guard var position = opening.firstIndex(in: bytes, from: 0) else {
            throw .malformed("The multipart form is malformed (no opening boundary).")
        }
        position += opening.count
        let separator = ByteFinder(Array("\r\n--\(boundary)".utf8))
        let headerEnd = ByteFinder([13, 10, 13, 10])
        var parts = 0
        while true {
            // After a boundary: "--" ends the body, CRLF starts a part.
            if bytes.count >= position + 2, bytes[position] == 0x2D, bytes[position + 1] == 0x2D { break }
            guard bytes.count >= position + 2, bytes[position] == 13, bytes[position + 1] == 10 else {
                throw .malformed("The multipart form is malformed (bad boundary line).")
            }
            parts += 1
            guard parts <= InputLimits.formParts else { throw FormData.tooManyParts }
            position += 2
            guard let headersStop = headerEnd.firstIndex(in: bytes, from: position) else {
                throw .malformed("The multipart form is malformed (part headers do not end).")
            }
            let headers = String(decoding: bytes[position..<headersStop], as: UTF8.self)
            let contentStart = headersStop + 4
            guard let contentStop = separator.firstIndex(in: bytes, from: contentStart) else {
                throw .malformed("The multipart form is malformed (a part does not end).")
            }
            try add(headers: headers, content: bytes[contentStart..<contentStop], to: &form)
            position = contentStop + separator.count
        }
        return form
    }

    private func add(headers: String, content: Slice<UnsafeRawBufferPointer>, to form: inout FormData) throws(FormError) {
        var disposition: String?
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" {
                disposition = pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
        guard let disposition, let name = FormData.parameter("name", in: disposition) else {
            throw .malformed("The multipart form has a part without a name.")
        }
        if let filename = FormData.parameter("filename", in: disposition) {
            form.files.append(.init(field: name, filename: filename, data: Data(content)))
        } else if disposition.contains("filename=") {
            // A file input left empty: browsers send `filename=""` and no bytes. Ignore it.
        } else {
            guard content.count <= InputLimits.formFieldBytes else { throw FormData.fieldTooLarge }
            form.fields.append((name, String(decoding: content, as: UTF8.self)))
        }
    }
}

/// Finds a byte string in a buffer in time linear in the buffer (Knuth–Morris–Pratt): after a partial
/// match fails, the scan resumes from the longest border of what matched instead of backing up.
package struct ByteFinder {
    private let needle: [UInt8]
    /// `border[i]`: length of the longest proper prefix of `needle[0...i]` that is also its suffix.
    private let border: [Int]

    package init(_ needle: [UInt8]) {
        self.needle = needle
        var border = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in needle.indices.dropFirst() {
            while length > 0, needle[index] != needle[length] { length = border[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            border[index] = length
        }
        self.border = border
    }

    var count: Int { needle.count }

    /// Where `needle` first starts in `haystack` at or after `start`, or `nil`.
    package func firstIndex(in haystack: [UInt8], from start: Int) -> Int? {
        haystack.withUnsafeBytes { firstIndex(in: $0, from: start) }
    }

    /// Where `needle` first starts in `haystack` at or after `start`, or `nil`.
    ///
    /// While nothing is matched, the scan jumps with `memchr` to the next byte that could start the needle
    /// (what the automaton would do one byte at a time), so a photo, where the delimiter's first byte is rare,
    /// is crossed at memory speed and the worst case stays linear.
    package func firstIndex(in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard !needle.isEmpty else { return start <= haystack.count ? start : nil }
        guard let base = haystack.baseAddress else { return nil }
        let first = Int32(needle[0])
        var matched = 0
        var index = start
        while index < haystack.count {
            if matched == 0 {
                guard let found = memchr(base + index, first, haystack.count - index) else { return nil }
                index = base.distance(to: UnsafeRawPointer(found))
            }
            let byte = haystack[index]
            while matched > 0, byte != needle[matched] { matched = border[matched - 1] }
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count { return index - needle.count + 1 }
            index += 1
        }
        return nil
    }
}
