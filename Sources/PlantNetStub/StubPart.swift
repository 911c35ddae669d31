import Foundation
import MultipartKit
import NIOCore

/// One part of a `multipart/form-data` body the stub received.
public struct StubPart: Sendable, Hashable {
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

    /// The boundary named by a `Content-Type` header, if it is `multipart/form-data`.
    static func boundary(fromContentType header: String) -> String? {
        let pieces = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let kind = pieces.first, kind.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = piece.dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The parts of `body` in order, read with multipart-kit the way a strict server would: a body that does
    /// not follow the format (no parts, a part left open, a part without a name) is refused with a reason.
    public static func parse(_ body: Data, boundary: String) throws(Failure) -> [StubPart] {
        let parser = MultipartParser(boundary: boundary)
        var parts: [StubPart] = []
        var headers: [(name: String, value: String)] = []
        var content = ByteBuffer()
        var open = false
        var failure: Failure?
        parser.onHeader = { name, value in
            open = true
            headers.append((name.lowercased(), value))
        }
        parser.onBody = { chunk in
            open = true
            content.writeBuffer(&chunk)
        }
        parser.onPartComplete = {
            defer { headers = []; content.clear(); open = false }
            let value = { (header: String) in headers.first { $0.name == header }?.value }
            let disposition = value("content-disposition") ?? ""
            guard let name = parameter("name", in: disposition) else {
                failure = failure ?? Failure("a part has no name")
                return
            }
            parts.append(StubPart(
                name: name, filename: parameter("filename", in: disposition), contentType: value("content-type"),
                data: Data(content.readableBytesView)
            ))
        }
        do {
            try parser.execute(ByteBuffer(bytes: body))
        } catch {
            throw Failure("not multipart/form-data")
        }
        if let failure { throw failure }
        guard !open else { throw Failure("part never closed") }
        guard !parts.isEmpty else { throw Failure("no parts") }
        return parts
    }

    private static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// Why a body was refused.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
