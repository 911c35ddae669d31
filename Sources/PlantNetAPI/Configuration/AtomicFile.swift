import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a reader sees the old content or the new, never half of either, with the
/// permissions set before any byte is written (the key file must never exist as world-readable).
enum AtomicFile {
    /// Writes `data` to a temporary file beside `url` with `permissions` and renames it over `url`.
    /// - Parameter durable: also flush it to disk first (`fsync`, tens of milliseconds here). Worth it for
    ///   data that cannot be rebuilt, like the API key; the cache and quota state are rebuilt from the next
    ///   answer, and a file damaged by a power cut is set aside on reading.
    static func write(_ data: Data, to url: URL, permissions: mode_t = 0o600, durable: Bool = false) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, permissions)
        guard descriptor >= 0 else { throw AtomicFileError(path: temporary.path, code: errno) }
        var failure: Int32?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if durable, failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw AtomicFileError(path: url.path, code: failure)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw AtomicFileError(path: url.path, code: code)
        }
    }
}

/// A failed system call while writing a file.
struct AtomicFileError: Error, CustomStringConvertible {
    var path: String
    var code: Int32

    var description: String { "Could not write \(path): \(String(cString: strerror(code)))" }
}
