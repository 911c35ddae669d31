import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a side file, held from creation until ``unlock()`` (or the process's end).
public struct FileLock: Sendable {
    private let descriptor: Int32

    /// Waits for the lock. When the lock file cannot be opened the work goes on unlocked: a lost quota update is
    /// better than no identification.
    public init(url: URL) {
        descriptor = Self.open(url)
        if descriptor >= 0 {
            while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The lock if no other process (or other holder in this one) has it now, without waiting; `nil` when it is
    /// held elsewhere. A lock file that cannot be opened counts as free.
    public static func attempt(url: URL) -> FileLock? {
        let descriptor = open(url)
        guard descriptor >= 0 else { return FileLock(descriptor: -1) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return FileLock(descriptor: descriptor) }
        close(descriptor)
        return nil
    }

    private static func open(_ url: URL) -> Int32 {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        #if canImport(Glibc)
        return Glibc.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #else
        return Darwin.open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #endif
    }

    /// Releases the lock.
    public func unlock() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
