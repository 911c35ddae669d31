import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names a process as `host:pid/nonce`, and tells whether a process so named still runs, so that work claimed by a process
/// that died (killed, crashed) can be taken over at once instead of after its lease.
public enum ProcessIdentity {
    /// This process: `host:pid/nonce`. The random nonce tells apart processes that share a host name and a process id,
    /// as containers started from one image do (each its own PID 1), so one never takes over another's claim as its own.
    public static let current =
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)/"
        + String(UInt64.random(in: 0...UInt64.max), radix: 16)

    /// Whether the process named `identity` runs. A process on another host cannot be asked: it counts as running
    /// (its claim then lasts until its lease ends).
    public static func isAlive(_ identity: String) -> Bool {
        // `host:pid`, or `host:pid/nonce` since processes carry a nonce.
        let identity = identity.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? identity
        guard let colon = identity.lastIndex(of: ":"), let pid = Int32(identity[identity.index(after: colon)...]), pid > 0 else {
            return false
        }
        guard identity[..<colon] == ProcessInfo.processInfo.hostName[...] else { return true }
        // Signal 0 checks existence; EPERM means it exists but belongs to someone else.
        return kill(pid, 0) == 0 || errno == EPERM
    }
}
