import Foundation

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

    /// Parses a body according to its `Content-Type`; `nil` when the type is neither form encoding.
    public static func parse(contentType: String?, body: Data) throws(ServerError) -> FormData? {
        guard let contentType else { return nil }
        let lowered = contentType.lowercased()
        if lowered.hasPrefix("application/x-www-form-urlencoded") {
            return FormData(urlEncoded: String(decoding: body, as: UTF8.self))
        }
        if lowered.hasPrefix("multipart/form-data") {
            guard let boundary = Self.parameter("boundary", in: contentType) else {
                throw .badRequest("The multipart form has no boundary.")
            }
            return try MultipartParser(boundary: boundary).parse(body)
        }
        return nil
    }

    /// Parses `a=1&b=two+words`.
    public init(urlEncoded text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (raw: Substring) -> String in
                String(raw).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields.append((decode(parts[0]), parts.count > 1 ? decode(parts[1]) : ""))
        }
    }

    init() {}

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
struct MultipartParser {
    let boundary: String

    func parse(_ body: Data) throws(ServerError) -> FormData {
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        var form = FormData()
        guard var position = find(delimiter, in: bytes, from: 0) else {
            throw .badRequest("The multipart form is malformed (no opening boundary).")
        }
        position += delimiter.count
        let separator = Array("\r\n--\(boundary)".utf8)
        let headerEnd: [UInt8] = [13, 10, 13, 10]
        while true {
            // After a boundary: "--" ends the body, CRLF starts a part.
            if bytes.count >= position + 2, bytes[position] == 0x2D, bytes[position + 1] == 0x2D { break }
            guard bytes.count >= position + 2, bytes[position] == 13, bytes[position + 1] == 10 else {
                throw .badRequest("The multipart form is malformed (bad boundary line).")
            }
            position += 2
            guard let headersStop = find(headerEnd, in: bytes, from: position) else {
                throw .badRequest("The multipart form is malformed (part headers do not end).")
            }
            let headers = String(decoding: bytes[position..<headersStop], as: UTF8.self)
            let contentStart = headersStop + 4
            guard let contentStop = find(separator, in: bytes, from: contentStart) else {
                throw .badRequest("The multipart form is malformed (a part does not end).")
            }
            try add(headers: headers, content: Data(bytes[contentStart..<contentStop]), to: &form)
            position = contentStop + separator.count
        }
        return form
    }

    private func add(headers: String, content: Data, to form: inout FormData) throws(ServerError) {
        var disposition: String?
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" {
                disposition = pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
        guard let disposition, let name = FormData.parameter("name", in: disposition) else {
            throw .badRequest("The multipart form has a part without a name.")
        }
        if let filename = FormData.parameter("filename", in: disposition) {
            form.files.append(.init(field: name, filename: filename, data: content))
        } else if disposition.contains("filename=") {
            // A file input left empty: browsers send `filename=""` and no bytes. Ignore it.
        } else {
            form.fields.append((name, String(decoding: content, as: UTF8.self)))
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
