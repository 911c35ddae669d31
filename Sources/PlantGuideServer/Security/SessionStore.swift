import Crypto
import Foundation
import Synchronization

/// Sessions of a browser or API client.
///
/// Every client carries a random session id in a cookie. Anonymous ids cost the server nothing: the
/// anti-forgery token is an HMAC of the id under a per-process secret, so it needs no storage. Only
/// logged-in ids are remembered, with an expiry, and their number is capped.
public final class SessionStore: Sendable {
    /// How long a log-in lasts.
    public let lifetime: TimeInterval
    private let secret: Data
    private let now: @Sendable () -> Date
    private let maximumSessions: Int
    private let authenticated = Mutex<[String: Date]>([:])

    /// Creates a store.
    /// - Parameters:
    ///   - lifetime: seconds a log-in stays valid.
    ///   - maximumSessions: logged-in sessions kept at most; the oldest go first.
    ///   - now: the clock.
    public init(lifetime: TimeInterval = 12 * 3600, maximumSessions: Int = 1000, now: @escaping @Sendable () -> Date = Date.init) {
        self.lifetime = lifetime
        self.maximumSessions = maximumSessions
        self.now = now
        secret = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// A new random session id (43 URL-safe characters).
    public func newSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
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
    }

    /// Ends a session's log-in.
    public func logOut(_ sessionID: String) {
        _ = authenticated.withLock { $0.removeValue(forKey: sessionID) }
    }

    /// Whether a session is logged in and not expired.
    public func isLoggedIn(_ sessionID: String) -> Bool {
        let current = now()
        return authenticated.withLock { sessions in
            guard let expiry = sessions[sessionID] else { return false }
            if expiry <= current {
                sessions[sessionID] = nil
                return false
            }
            return true
        }
    }
}
