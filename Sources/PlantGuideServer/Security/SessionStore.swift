import Crypto
import Foundation
import PlantGuideCore
import PlantGuideLive
import Synchronization

/// Sessions of a browser or API client.
///
/// Every client carries a random session id in a cookie. Anonymous ids cost the server nothing: the
/// anti-forgery token is an HMAC of the id under a secret, so it needs no storage. Only logged-in ids are
/// remembered, with an expiry, and their number is capped in memory. With accounts (``AccountDirectory``) log-ins are
/// kept in the database instead, and with a stable secret they and their forms survive a restart.
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
    ///   - secret: the anti-forgery secret (32 bytes or more); a random one per process when `nil`.
    public init(
        lifetime: TimeInterval = 12 * 3600, maximumSessions: Int = 1000, secret: Data? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.lifetime = lifetime
        self.maximumSessions = maximumSessions
        self.now = now
        self.secret = secret.flatMap { $0.count >= 32 ? $0 : nil } ?? SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// What is stored of a session id: its SHA-256, so a copy of the database lets no one in.
    static func idHash(_ sessionID: String) -> String {
        hexString(SHA256.hash(data: Data(sessionID.utf8)))
    }

    /// A new random session id (43 URL-safe characters: 32 random bytes in unpadded base64url).
    ///
    /// Every request without a session cookie gets one, so its 32 random bytes come in one call and are encoded by
    /// hand, rather than asked for one at a time and base64 text rewritten three times.
    public func newSessionID() -> String {
        // A fresh 256-bit key is 32 bytes from the cryptographic generator, in one call.
        var bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(44)
        bytes.append(0)  // 32 bytes are 10 groups of three and two left over: pad the last group, drop its last character.
        for start in stride(from: 0, to: 33, by: 3) {
            let group = UInt32(bytes[start]) << 16 | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2])
            for shift in [18, 12, 6, 0] as [UInt32] { out.append(alphabet[Int((group >> shift) & 63)]) }
        }
        return String(decoding: out.prefix(43), as: UTF8.self)
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
        hexString(HMAC<SHA256>.authenticationCode(for: Array(("csrf:" + sessionID).utf8), using: SymmetricKey(data: secret)))
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
        let known = authenticated.withLock { sessions -> Bool? in
            guard let expiry = sessions[sessionID] else { return nil }
            if expiry <= current {
                sessions[sessionID] = nil
                return false
            }
            return true
        }
        return known ?? false
    }
}

/// Lower-case hexadecimal of `bytes`, two digits a byte (what `String(format: "%02x")` per byte gives, in one pass).
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
