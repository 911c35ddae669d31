import Foundation
import MultipartKit
import NIOCore
import NIOHTTP1

/// A `multipart/form-data` body (RFC 7578): text fields and files, in the order added, written by
/// multipart-kit's serializer.
struct MultipartForm {
    let boundary: String
    private var parts: [MultipartPart] = []

    init(boundary: String = "plantguide-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    /// The `Content-Type` header value, naming the boundary.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func addField(name: String, value: String) {
        parts.append(MultipartPart(headers: ["Content-Disposition": "form-data; name=\"\(name)\""], body: value))
    }

    mutating func addFile(name: String, filename: String, contentType: String, data: Data) {
        let headers: HTTPHeaders = [
            "Content-Disposition": "form-data; name=\"\(name)\"; filename=\"\(filename)\"",
            "Content-Type": contentType,
        ]
        parts.append(MultipartPart(headers: headers, body: data))
    }

    /// The body with its closing boundary.
    var body: Data {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(parts.reduce(256) { $0 + $1.body.readableBytes + 256 })
        // The serializer throws only for what it is given; these parts are plain headers and bytes.
        try? MultipartSerializer().serialize(parts: parts, boundary: boundary, into: &buffer)
        return Data(buffer.readableBytesView)
    }
}
