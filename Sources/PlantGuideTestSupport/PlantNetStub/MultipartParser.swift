import Foundation

/// One part of a `multipart/form-data` body.
public struct MultipartPart: Sendable, Hashable {
    /// The `name` of its `Content-Disposition`.
    public var name: String
    /// The `filename`, for file parts.
    public var filename: String?
    /// Its `Content-Type`, when given.
    public var contentType: String?
    /// Its content.
    public var data: Data

    /// The content as UTF-8 text.
    public var text: String { String(decoding: data, as: UTF8.self) }
}

/// Reads `multipart/form-data` bodies (RFC 7578) the way a strict server would: a body that does not follow
/// the format is refused with a reason rather than half-read.
public enum MultipartParser {
    /// The boundary named by a `Content-Type` header, if it is `multipart/form-data`.
    public static func boundary(fromContentType header: String) -> String? {
        let pieces = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let kind = pieces.first, kind.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = piece.dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The parts of `body`, in order.
    public static func parse(_ body: Data, boundary: String) throws -> [MultipartPart] {
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n\r\n".utf8)
        guard var cursor = body.range(of: delimiter)?.upperBound else { throw Failure("no opening boundary") }
        var parts: [MultipartPart] = []
        while true {
            let rest = body[cursor...]
            if rest.starts(with: Data("--".utf8)) { return parts }
            guard rest.starts(with: Data("\r\n".utf8)) else { throw Failure("boundary not followed by CRLF") }
            let headerStart = cursor + 2
            guard let headerEnd = body.range(of: separator, in: headerStart..<body.endIndex) else {
                throw Failure("part headers never end")
            }
            let contentStart = headerEnd.upperBound
            guard let next = body.range(of: Data("\r\n".utf8) + delimiter, in: contentStart..<body.endIndex) else {
                throw Failure("part never closed")
            }
            let headers = String(decoding: body[headerStart..<headerEnd.lowerBound], as: UTF8.self)
            parts.append(try makePart(headers: headers, data: Data(body[contentStart..<next.lowerBound])))
            cursor = next.upperBound
        }
    }

    private static func makePart(headers: String, data: Data) throws -> MultipartPart {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headers.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if field == "content-type" { contentType = value }
            guard field == "content-disposition" else { continue }
            for parameter in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                let text = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch pair[0].lowercased() {
                case "name": name = text
                case "filename": filename = text
                default: break
                }
            }
        }
        guard let name else { throw Failure("a part has no name") }
        return MultipartPart(name: name, filename: filename, contentType: contentType, data: data)
    }

    /// Why a body was refused.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
