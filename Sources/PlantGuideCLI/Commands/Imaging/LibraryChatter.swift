import Foundation

/// Keeps C libraries' own diagnostics off the terminal: libde265 prints some bitstream errors straight
/// to standard error, while a failing command must print exactly one line (its own error).
enum LibraryChatter {
    /// Runs `body` with file descriptor 2 pointed at /dev/null, then restores it.
    static func silenced<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0, null >= 0 { dup2(null, STDERR_FILENO) }
        defer {
            fflush(nil)
            if saved >= 0 {
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
            if null >= 0 { close(null) }
        }
        return try body()
    }
}
