import Crypto
import Foundation
import PlantGuideCore
import _CryptoExtras

/// A password stored as PBKDF2-HMAC-SHA256: `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`.
///
/// Only the hash is ever written to disk; verification compares in constant time.
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible {
    /// Iterations used for new hashes (OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256).
    public static let defaultIterations = 600_000

    /// Work factor.
    public let iterations: Int
    /// Random salt.
    public let salt: Data
    /// Derived key.
    public let hash: Data

    /// Hashes a new password with a fresh random salt.
    public init(password: String, iterations: Int = PasswordHash.defaultIterations) {
        self.init(password: password, salt: secureRandomBytes(16), iterations: iterations)
    }

    /// Hashes a password with a given salt.
    public init(password: String, salt: Data, iterations: Int) {
        self.iterations = iterations
        self.salt = salt
        hash = Self.derive(password: Data(password.utf8), salt: salt, iterations: iterations)
    }

    /// Parses the stored form; `nil` when it is not one.
    public init?(encoded: String) {
        let parts = encoded.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), iterations > 0,
            iterations <= 10_000_000, let salt = Data(base64Encoded: String(parts[2])),
            let hash = Data(base64Encoded: String(parts[3])), hash.count == 32
        else { return nil }
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    /// The stored form.
    public var encoded: String {
        "pbkdf2-sha256$\(iterations)$\(salt.base64EncodedString())$\(hash.base64EncodedString())"
    }

    /// Never the hash itself, so a stray log line gives nothing away.
    public var description: String { "PasswordHash(pbkdf2-sha256, \(iterations) iterations)" }

    /// Whether `password` is the one this hash was made from.
    public func verify(_ password: String) -> Bool {
        let candidate = Self.derive(password: Data(password.utf8), salt: salt, iterations: iterations)
        return constantTimeEqual(candidate, hash)
    }

    /// PBKDF2 (RFC 8018) with HMAC-SHA256 and one 32-byte block, by BoringSSL through swift-crypto: a log-in at
    /// 600,000 iterations costs a fraction of the CPU the HMAC loop below does (``deriveByHMAC``), which only
    /// stands in should the library refuse.
    package static func derive(password: Data, salt: Data, iterations: Int) -> Data {
        let rounds = max(iterations, 1)
        guard let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: password, salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds
        ) else { return deriveByHMAC(password: password, salt: salt, iterations: rounds) }
        return key.withUnsafeBytes { Data($0) }
    }

    /// PBKDF2 with HMAC-SHA256 written out over swift-crypto's HMAC: the stand-in for ``derive``.
    package static func deriveByHMAC(password: Data, salt: Data, iterations: Int) -> Data {
        let key = SymmetricKey(data: password)
        var block = salt
        block.append(contentsOf: [0, 0, 0, 1])
        var previous = Data(HMAC<SHA256>.authenticationCode(for: block, using: key))
        var result = [UInt8](previous)
        for _ in 1..<max(iterations, 1) {
            previous = Data(HMAC<SHA256>.authenticationCode(for: previous, using: key))
            for (index, byte) in previous.enumerated() { result[index] ^= byte }
        }
        return Data(result)
    }
}
