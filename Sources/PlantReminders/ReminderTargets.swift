import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where reminders may be sent: https URLs whose host resolves only to public addresses, so that a channel added by a
/// member cannot make the server call into its own network (a router's admin page, a database on loopback).
/// `PLANTGUIDE_ALLOW_LOCAL_TARGETS=1` lifts both rules, for tests and a home network's own ntfy server.
public struct ReminderTargets: Sendable {
    /// The environment variable that allows loopback, private and plain-http targets.
    public static let allowLocalVariable = "PLANTGUIDE_ALLOW_LOCAL_TARGETS"

    /// Whether loopback, private and http targets are allowed.
    public var allowLocal: Bool
    /// Looks a host name up: its numeric addresses, none when it does not resolve (the system's resolver, blocking).
    public var lookUp: @Sendable (_ host: String, _ port: Int) -> [String]

    /// The policy with local targets allowed or not; `lookUp` replaces the system's resolver (tests without DNS).
    public init(allowLocal: Bool, lookUp: (@Sendable (_ host: String, _ port: Int) -> [String])? = nil) {
        self.allowLocal = allowLocal
        self.lookUp = lookUp ?? { Self.resolve($0, port: $1) }
    }

    /// The policy the environment chooses.
    public init(environment: [String: String]) {
        self.init(allowLocal: environment[Self.allowLocalVariable] == "1")
    }

    /// What the checks say of a target.
    public enum Verdict: Sendable, Hashable {
        /// It may be sent to.
        case allowed
        /// It may never be sent to (not https, a local address): the reason.
        case refused(String)
        /// Its host does not resolve now (a DNS outage or a typo): the reason. Worth trying again later.
        case unresolved(String)

        /// Why it may not be sent to now, or `nil` when it may.
        public var problem: String? {
            switch self {
            case .allowed: nil
            case .refused(let reason), .unresolved(let reason): reason
            }
        }
    }

    /// Why `target` may not be sent to, or `nil` when it may. Resolves the host: a blocking lookup, see ``check(_:)``.
    public func problem(with target: String) -> String? { verdict(for: target).problem }

    /// The verdict on `target`, the host looked up on NIO's thread pool so that a slow DNS server blocks no task (a
    /// target that needs no lookup is answered at once).
    public func check(_ target: String) async -> Verdict {
        if let quick = verdictWithoutLookUp(target) { return quick }
        let policy = self
        do {
            return try await NIOThreadPool.singleton.runIfActive { policy.verdict(for: target) }
        } catch {
            return .unresolved("its host could not be looked up (\(error))")
        }
    }

    /// The verdict on `target`, resolving its host on the calling thread.
    public func verdict(for target: String) -> Verdict {
        if let quick = verdictWithoutLookUp(target) { return quick }
        guard let url = URL(string: target), let host = url.host else { return .refused("not an http or https URL") }
        let addresses = lookUp(host, url.port ?? 443)
        guard !addresses.isEmpty else { return .unresolved("its host \(host) does not resolve") }
        if let local = addresses.first(where: Self.isLocal) {
            return .refused(
                "its host \(host) is a loopback or private address (\(local)); set \(Self.allowLocalVariable)=1 to allow it"
            )
        }
        return .allowed
    }

    /// The verdict when it needs no lookup (not a URL, not https, local targets allowed); `nil` when it does.
    private func verdictWithoutLookUp(_ target: String) -> Verdict? {
        guard let url = URL(string: target), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return .refused("not an http or https URL")
        }
        if allowLocal { return scheme == "http" || scheme == "https" ? .allowed : .refused("not an http or https URL") }
        guard scheme == "https" else {
            return .refused("only https targets are allowed (set \(Self.allowLocalVariable)=1 for http on a home network)")
        }
        return nil
    }

    /// The numeric addresses a host resolves to.
    static func resolve(_ host: String, port: Int) -> [String] {
        var hints = addrinfo()
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    /// Whether a numeric address is loopback, private, link-local, site-local, carrier-grade NAT, a NAT64 or benchmark
    /// range, IETF protocol assignments, unspecified or multicast: anything a server should not be made to call.
    static func isLocal(_ address: String) -> Bool {
        if address.contains(":") {
            let lower = address.lowercased()
            if lower == "::1" || lower == "::" { return true }
            if lower.hasPrefix("::ffff:") { return isLocal(String(lower.dropFirst(7))) }
            // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast, 64:ff9b::/96 NAT64
            // (it maps to IPv4, private ones included).
            return ["fc", "fd", "fe8", "fe9", "fea", "feb", "fec", "fed", "fee", "fef", "ff", "64:ff9b:"]
                .contains { lower.hasPrefix($0) }
        }
        let parts = address.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return true }
        switch (parts[0], parts[1], parts[2]) {
        case (0, _, _), (10, _, _), (127, _, _), (169, 254, _), (192, 168, _): return true
        case (172, 16...31, _), (100, 64...127, _), (198, 18...19, _), (192, 0, 0): return true
        case (224...255, _, _): return true
        default: return false
        }
    }
}
