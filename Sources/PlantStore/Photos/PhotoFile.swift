import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes content-addressed photo files so that several writers (threads, processes, server replicas sharing
/// the data directory over NFS) can store the same file at once and a reader never sees half of one.
///
/// Each writer fills its own `.<sha>.<uuid>.partial` beside the final name (created with `O_EXCL`, so no two
/// writers share one), flushes it, and renames it over the final name: `rename` is atomic, and a file already
/// there has the same content (the name is its SHA-256). The directory is flushed last so the new name
/// survives a power cut. On any error the partial file is removed.
enum PhotoFile {
    /// Bytes written per `write` call.
    static let chunkSize = 1 << 20
    /// Age after which a `.partial` file is taken for the leftover of a crashed writer.
    static let stalePartialAge: TimeInterval = 86_400

    /// A failed system call.
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// Whether `url` is a regular file of `byteCount` bytes (a complete copy of content-addressed data).
    static func isComplete(_ url: URL, byteCount: Int) -> Bool {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG && Int(info.st_size) == byteCount
    }

    /// Writes `data` to `url` through a partial file and a rename, as described on the type.
    /// - Parameters:
    ///   - sha: the content's SHA-256, used in the partial file's name.
    ///   - fault: tests only: called before each chunk with the bytes written so far; an error code it
    ///     returns fails the write at that point.
    static func write(
        _ data: Data, to url: URL, sha: String, fault: (@Sendable (_ written: Int) -> Int32?)? = nil
    ) throws(Failure) {
        let folder = url.deletingLastPathComponent()
        try makeDirectory(folder.path)
        let partial = folder.appendingPathComponent(".\(sha).\(UUID().uuidString).partial").path
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(operation: "create \(partial)", code: errno) }
        var failure: Failure?
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                if let code = fault?(offset) {
                    failure = Failure(operation: "write \(partial)", code: code)
                    return
                }
                let written = Foundation.write(descriptor, base + offset, min(chunkSize, buffer.count - offset))
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Failure(operation: "write \(partial)", code: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Failure(operation: "flush \(partial)", code: errno) }
        // NFS reports some write errors only on close.
        if close(descriptor) != 0, failure == nil { failure = Failure(operation: "close \(partial)", code: errno) }
        if failure == nil, rename(partial, url.path) != 0 { failure = Failure(operation: "rename \(partial)", code: errno) }
        if let failure {
            unlink(partial)
            throw failure
        }
        try flushDirectory(folder.path)
    }

    /// Removes `.partial` files in `folder` last changed before `now - stalePartialAge`; returns how many.
    /// Missing folders and files that vanish meanwhile are fine.
    @discardableResult
    static func removeStalePartials(in folder: URL, now: Date) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        let cutoff = now.timeIntervalSince1970 - stalePartialAge
        var removed = 0
        for name in names where name.hasPrefix(".") && name.hasSuffix(".partial") {
            let path = folder.appendingPathComponent(name).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let changed = attributes[.modificationDate] as? Date, changed.timeIntervalSince1970 < cutoff
            else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Creates a directory and its missing parents (mode 0700); one that exists, or that another writer
    /// creates meanwhile, is fine.
    private static func makeDirectory(_ path: String) throws(Failure) {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else { throw Failure(operation: "create the folder \(path)", code: errno) }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path else { throw Failure(operation: "create the folder \(path)", code: ENOENT) }
        try makeDirectory(parent)
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        throw Failure(operation: "create the folder \(path)", code: errno)
    }

    /// Flushes a directory so a rename in it is durable. File systems that cannot flush a directory
    /// (`EINVAL`) are accepted.
    private static func flushDirectory(_ path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open the folder \(path)", code: errno) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0, errno != EINVAL { throw Failure(operation: "flush the folder \(path)", code: errno) }
    }
}
