import Crypto
import Foundation
import PlantGuideCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a Web Push subscription or key cannot be used.
public struct WebPushError: Error, CustomStringConvertible, Sendable {
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The server's VAPID key pair (RFC 8292): browsers subscribe with its public key, and every push request carries a JWT
/// signed with its private key (ES256), which is how a push service knows the request comes from the server the browser
/// subscribed to.
public struct VAPIDKeys: Sendable {
    /// The file the key is kept in, inside the data directory (mode 0600).
    public static let fileName = "vapid-key.pem"

    /// The key types are immutable values that swift-crypto does not mark `Sendable`.
    private struct Held: @unchecked Sendable {
        let key: P256.Signing.PrivateKey
    }

    private let held: Held

    /// Keys around a private key (tests).
    public init(privateKey: P256.Signing.PrivateKey) { held = Held(key: privateKey) }

    var privateKey: P256.Signing.PrivateKey { held.key }

    /// The public key as browsers take it (`applicationServerKey`): the uncompressed point, base64url without padding.
    public var publicKey: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// The key kept in `directory`, made on first use. Several processes starting at once (replicas on one data
    /// directory) end up with the same key: it is written to a file of its own and linked into place, and whoever links
    /// second reads the first's.
    public static func loadOrCreate(in directory: DataDirectory) throws -> VAPIDKeys {
        let file = directory.appending(fileName)
        if let keys = try read(file) { return keys }
        try directory.create()
        let made = P256.Signing.PrivateKey()
        let temporary = directory.appending(".\(fileName).\(UUID().uuidString)")
        defer { unlink(temporary.path) }
        // Made 0600 from the start: never readable by others, not even for a moment.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WebPushError("could not write the Web Push key to \(directory.url.path)") }
        let pem = Array(made.pemRepresentation.utf8)
        let written = pem.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == pem.count else { throw WebPushError("could not write the Web Push key to \(directory.url.path)") }
        if link(temporary.path, file.path) != 0, errno != EEXIST {
            throw WebPushError("could not keep the Web Push key in \(file.path): \(String(cString: strerror(errno)))")
        }
        guard let keys = try read(file) else { throw WebPushError("the Web Push key in \(file.path) vanished") }
        return keys
    }

    private static func read(_ file: URL) throws -> VAPIDKeys? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        do {
            return VAPIDKeys(privateKey: try P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self)))
        } catch {
            throw WebPushError("\(file.path) does not hold a P-256 private key; move it away to make a new one")
        }
    }

    /// The `Authorization` header for a push to `endpoint`: `vapid t=<JWT>, k=<public key>`, the JWT's audience the
    /// endpoint's origin, valid 12 hours from `now`, naming `subject` (a `mailto:` or https address of the server's
    /// operator, as push services ask).
    public func authorization(for endpoint: URL, subject: String, now: Date) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw WebPushError("the endpoint has no origin") }
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let claims: [String: Any] = [
            "aud": "\(scheme)://\(host)\(port)", "exp": Int(now.timeIntervalSince1970) + 12 * 3_600, "sub": subject,
        ]
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let signingInput = "\(header).\(body)"
        let signature = try privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return "vapid t=\(signingInput).\(Base64URL.encode(signature)), k=\(publicKey)"
    }
}

/// A browser's push subscription (the `PushSubscription.toJSON()` of the Push API): where to send, and the keys the
/// message is encrypted for.
public struct WebPushSubscription: Sendable, Hashable {
    /// The push service's URL for this browser.
    public var endpoint: String
    /// The browser's P-256 public key, uncompressed (65 bytes).
    public var p256dh: Data
    /// The shared authentication secret (16 bytes).
    public var auth: Data

    /// A subscription from its parts, checked.
    public init(endpoint: String, p256dh: Data, auth: Data) throws {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil else {
            throw WebPushError("the subscription's endpoint is not an http(s) URL")
        }
        guard (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil else {
            throw WebPushError("the subscription's p256dh key is not an uncompressed P-256 public key")
        }
        guard auth.count == 16 else { throw WebPushError("the subscription's auth secret is not 16 bytes") }
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }

    /// A subscription as browsers give it: `{"endpoint": …, "keys": {"p256dh": …, "auth": …}}` (base64url keys).
    public init(json: Data) throws {
        struct Shape: Decodable {
            struct Keys: Decodable {
                var p256dh: String
                var auth: String
            }
            var endpoint: String
            var keys: Keys
        }
        guard let shape = try? JSONDecoder().decode(Shape.self, from: json) else {
            throw WebPushError("a subscription is JSON like {\"endpoint\": \"https://…\", \"keys\": {\"p256dh\": \"…\", \"auth\": \"…\"}}")
        }
        guard let p256dh = Base64URL.decode(shape.keys.p256dh), let auth = Base64URL.decode(shape.keys.auth) else {
            throw WebPushError("the subscription's keys are not base64url")
        }
        try self.init(endpoint: shape.endpoint, p256dh: p256dh, auth: auth)
    }

    /// A subscription kept as a channel: its endpoint the target, its keys the token.
    public init(endpoint: String, token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let p256dh = Base64URL.decode(String(parts[0])), let auth = Base64URL.decode(String(parts[1]))
        else { throw WebPushError("the channel's subscription keys are damaged") }
        try self.init(endpoint: endpoint, p256dh: p256dh, auth: auth)
    }

    /// The keys as a channel keeps them (`p256dh.auth`, base64url): secret, like any channel's token.
    public var token: String { Base64URL.encode(p256dh) + "." + Base64URL.encode(auth) }
}

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188): one record, so a message is
/// at most ``maximumPlaintext`` bytes.
public enum WebPushEncryption {
    /// The record size written in the header.
    public static let recordSize = 4_096
    /// The longest message: push services take at most 4,096 bytes of body (RFC 8291 §4), of which the header takes 86
    /// (salt 16, record size 4, key length 1, key 65), the tag 16 and the padding delimiter 1.
    public static let maximumPlaintext = 4_096 - 86 - 17

    /// `plaintext` encrypted for `subscription`: the header (salt, record size, the server's ephemeral public key) and
    /// the record. `salt` and `serverKey` are fresh unless given (known-answer tests).
    public static func encrypt(
        _ plaintext: Data, for subscription: WebPushSubscription, salt: Data? = nil,
        serverKey: P256.KeyAgreement.PrivateKey? = nil
    ) throws -> Data {
        guard plaintext.count <= maximumPlaintext else {
            throw WebPushError("a push message is at most \(maximumPlaintext) bytes, not \(plaintext.count)")
        }
        let salt = salt ?? Data(secureRandomBytes(16))
        guard salt.count == 16 else { throw WebPushError("the salt is 16 bytes") }
        let serverKey = serverKey ?? P256.KeyAgreement.PrivateKey()
        let browserKey = try P256.KeyAgreement.PublicKey(x963Representation: subscription.p256dh)
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: browserKey)
        let serverPublic = serverKey.publicKey.x963Representation

        // RFC 8291 §3.4: the input keying material from the ECDH secret, the auth secret and both public keys.
        let keyInfo = Data("WebPush: info".utf8) + [0] + subscription.p256dh + serverPublic
        let authPRK = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: shared.bytes), salt: subscription.auth)
        let ikm = HKDF<SHA256>.expand(pseudoRandomKey: authPRK, info: keyInfo, outputByteCount: 32)
        // RFC 8188 §2.2–2.3: the content encryption key and the nonce.
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let key = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)

        // The last (only) record ends with the delimiter 2.
        let sealed = try AES.GCM.seal(plaintext + [2], using: key, nonce: try AES.GCM.Nonce(data: nonce.bytes))
        var header = salt
        header.append(contentsOf: withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) })
        header.append(UInt8(serverPublic.count))
        header.append(serverPublic)
        return header + sealed.ciphertext + sealed.tag
    }
}

/// base64url without padding (RFC 4648 §5), as Web Push and JWTs write keys and signatures.
public enum Base64URL {
    /// `data` as base64url without padding.
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url text, padded or not; `nil` for anything else.
    public static func decode(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("=") || standard.count % 4 == 0 else { return nil }
        standard = standard.replacingOccurrences(of: "=", with: "")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}

extension SharedSecret {
    var bytes: Data { withUnsafeBytes { Data($0) } }
}

extension SymmetricKey {
    var bytes: Data { withUnsafeBytes { Data($0) } }
}
