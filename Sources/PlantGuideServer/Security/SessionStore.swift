import Crypto
import Foundation
import Synchronization

/// Where log-ins are kept so they survive a restart: by the SHA-256 of the session id, with their expiry.
public struct SessionPersistence: Sendable {
    /// Remembers a log-in until the date (and may drop expired ones); the third argument is now.
    public var save: @Sendable (_ idHash: String, _ expiresAt: Date, _ now: Date) throws -> Void
    /// The expiry of a remembered log-in, or `nil`.
    public var expiry: @Sendable (_ idHash: String) throws -> Date?
    /// Forgets a log-in.
    public var delete: @Sendable (_ idHash: String) throws -> Void

    /// Creates the persistence from its operations.
    public init(
        save: @escaping @Sendable (_ idHash: String, _ expiresAt: Date, _ now: Date) throws -> Void,
        expiry: @escaping @Sendable (_ idHash: String) throws -> Date?,
        delete: @escaping @Sendable (_ idHash: String) throws -> Void
    ) {
        self.save = save
        self.expiry = expiry
        self.delete = delete
    }
}

/// Sessions of a browser or API client.
///
/// Every client carries a random session id in a cookie. Anonymous ids cost the server nothing: the
/// anti-forgery token is an HMAC of the id under a secret, so it needs no storage. Only logged-in ids are
/// remembered, with an expiry, and their number is capped in memory. With a ``SessionPersistence`` (the live
/// server's database) and a stable secret, log-ins and their forms survive a restart.
public final class SessionStore: Sendable {
    /// How long a log-in lasts.
    public let lifetime: TimeInterval
    private let secret: Data
    private let now: @Sendable () -> Date
    private let maximumSessions: Int
    private let authenticated = Mutex<[String: Date]>([:])
    private let persistence: SessionPersistence?
    private let log: @Sendable (String) -> Void

    /// Creates a store.
    /// - Parameters:
    ///   - lifetime: seconds a log-in stays valid.
    ///   - maximumSessions: logged-in sessions kept at most; the oldest go first.
    ///   - now: the clock.
    ///   - secret: the anti-forgery secret (32 bytes or more); a random one per process when `nil`.
    ///   - persistence: where log-ins are also kept; a failure there is logged and the log-in still holds in memory.
    public init(
        lifetime: TimeInterval = 12 * 3600, maximumSessions: Int = 1000, secret: Data? = nil,
        persistence: SessionPersistence? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.lifetime = lifetime
        self.maximumSessions = maximumSessions
        self.now = now
        self.persistence = persistence
        self.log = log
        self.secret = secret.flatMap { $0.count >= 32 ? $0 : nil } ?? SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// What is stored of a session id: its SHA-256, so a copy of the database lets no one in.
    static func idHash(_ sessionID: String) -> String {
        SHA256.hash(data: Data(sessionID.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random session id (43 URL-safe characters).
    public func newSessionID() -> String {
        secureRandomBytes(32).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `id` looks like an id this store hands out (so arbitrary cookie text is never trusted).
    public func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 43 && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F
        }
    }

    /// The anti-forgery token of a session.
    public func csrfToken(for sessionID: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(("csrf:" + sessionID).utf8), using: SymmetricKey(data: secret))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `token` is the anti-forgery token of `sessionID`.
    public func verifyCSRF(_ token: String, sessionID: String) -> Bool {
        constantTimeEqual(Array(token.utf8), Array(csrfToken(for: sessionID).utf8))
    }

    /// Marks a session as logged in.
    public func logIn(_ sessionID: String) {
        let expiry = now().addingTimeInterval(lifetime)
        authenticated.withLock { sessions in
            let current = now()
            sessions = sessions.filter { $0.value > current }
            if sessions.count >= maximumSessions, let oldest = sessions.min(by: { $0.value < $1.value }) {
                sessions[oldest.key] = nil
            }
            sessions[sessionID] = expiry
        }
        do {
            try persistence?.save(Self.idHash(sessionID), expiry, now())
        } catch {
            log("log-in not stored (it lasts until a restart): \(error)")
        }
    }

    /// Ends a session's log-in.
    public func logOut(_ sessionID: String) {
        _ = authenticated.withLock { $0.removeValue(forKey: sessionID) }
        do {
            try persistence?.delete(Self.idHash(sessionID))
        } catch {
            log("log-out not stored: \(error)")
        }
    }

    /// Whether a session is logged in and not expired.
    public func isLoggedIn(_ sessionID: String) -> Bool {
        let current = now()
        let known = authenticated.withLock { sessions -> Bool? in
            guard let expiry = sessions[sessionID] else { return nil }
            if expiry <= current {
                sessions[sessionID] = nil
                return false
            }
            return true
        }
        if let known { return known }
        // Not in memory: a log-in from before a restart, if the database remembers it.
        guard let persistence, let expiry = try? persistence.expiry(Self.idHash(sessionID)), expiry > current else { return false }
        authenticated.withLock { sessions in
            if sessions.count < maximumSessions { sessions[sessionID] = expiry }
        }
        return true
    }
}
