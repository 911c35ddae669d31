import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, in the order added.
struct MultipartForm {
    let boundary: String
    private var content = Data()

    init(boundary: String = "plantguide-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    /// The `Content-Type` header value, naming the boundary.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func addField(name: String, value: String) {
        append("--\(boundary)\r\n")
        append("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n")
        append(value)
        append("\r\n")
    }

    mutating func addFile(name: String, filename: String, contentType: String, data: Data) {
        append("--\(boundary)\r\n")
        append("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n")
        append("Content-Type: \(contentType)\r\n\r\n")
        content.append(data)
        append("\r\n")
    }

    /// The body with its closing boundary.
    var body: Data {
        var result = content
        result.append(Data("--\(boundary)--\r\n".utf8))
        return result
    }

    private mutating func append(_ text: String) {
        content.append(Data(text.utf8))
    }
}
