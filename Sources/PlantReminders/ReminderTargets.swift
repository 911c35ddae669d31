import Foundation
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

    /// The policy with local targets allowed or not.
    public init(allowLocal: Bool) { self.allowLocal = allowLocal }

    /// The policy the environment chooses.
    public init(environment: [String: String]) {
        allowLocal = environment[Self.allowLocalVariable] == "1"
    }

    /// Why `target` may not be sent to, or `nil` when it may. Resolves the host (a blocking lookup; call it off the
    /// event loops).
    public func problem(with target: String) -> String? {
        guard let url = URL(string: target), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "not an http or https URL"
        }
        if allowLocal { return scheme == "http" || scheme == "https" ? nil : "not an http or https URL" }
        guard scheme == "https" else {
            return "only https targets are allowed (set \(Self.allowLocalVariable)=1 for http on a home network)"
        }
        let addresses = Self.resolve(host, port: url.port ?? 443)
        guard !addresses.isEmpty else { return "its host \(host) does not resolve" }
        if let local = addresses.first(where: Self.isLocal) {
            return "its host \(host) is a loopback or private address (\(local)); set \(Self.allowLocalVariable)=1 to allow it"
        }
        return nil
    }

    /// The numeric addresses a host resolves to.
    static func resolve(_ host: String, port: Int) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
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

    /// Whether a numeric address is loopback, private, link-local, carrier-grade NAT, unspecified or multicast.
    static func isLocal(_ address: String) -> Bool {
        if address.contains(":") {
            let lower = address.lowercased()
            if lower == "::1" || lower == "::" { return true }
            if lower.hasPrefix("::ffff:") { return isLocal(String(lower.dropFirst(7))) }
            return ["fc", "fd", "fe8", "fe9", "fea", "feb", "ff"].contains { lower.hasPrefix($0) }
        }
        let parts = address.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return true }
        switch (parts[0], parts[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
        case (172, 16...31), (100, 64...127): return true
        case (224...255, _): return true
        default: return false
        }
    }
}
