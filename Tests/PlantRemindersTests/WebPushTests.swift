import Crypto
import Foundation
import PlantGuideCore
import PlantStore
import Testing
@testable import PlantReminders

/// The parts of Web Push that do not need a push service (Tests/Reminders/webpush_check.py checks the messages against
/// reference implementations): the kept key, subscriptions, the message's size and the encrypted body's layout.
@Suite struct WebPushTests {
    private static func directory() -> DataDirectory {
        DataDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("webpush-\(UUID())"))
    }

    @Test func theKeyIsMadeOnceKeptPrivateAndSharedByProcessesStartingTogether() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory.url) }
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try VAPIDKeys.loadOrCreate(in: directory).publicKey } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        let file = directory.appending(VAPIDKeys.fileName)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try VAPIDKeys.loadOrCreate(in: directory).publicKey == keys.first)
        // Only the key file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [VAPIDKeys.fileName])

        try Data("not a key".utf8).write(to: file)
        #expect(throws: WebPushError.self) { try VAPIDKeys.loadOrCreate(in: directory) }
    }

    @Test func theJWTNamesTheEndpointsOriginAndVerifiesWithThePublicKey() throws {
        let keys = VAPIDKeys(privateKey: P256.Signing.PrivateKey())
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let header = try keys.authorization(
            for: try #require(URL(string: "https://fcm.googleapis.com:443/fcm/send/abc")), subject: "mailto:a@example.org",
            now: now
        )
        let parts = header.dropFirst("vapid t=".count).components(separatedBy: ", k=")
        #expect(parts.count == 2 && parts[1] == keys.publicKey)
        let pieces = parts[0].split(separator: ".").map(String.init)
        let claimBytes = try #require(Base64URL.decode(pieces[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: claimBytes) as? [String: Any])
        #expect(claims["aud"] as? String == "https://fcm.googleapis.com:443")
        #expect(claims["exp"] as? Int == 1_780_000_000 + 43_200 && claims["sub"] as? String == "mailto:a@example.org")
        let signatureBytes = try #require(Base64URL.decode(pieces[2]))
        let publicKeyBytes = try #require(Base64URL.decode(keys.publicKey))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        let publicKey = try P256.Signing.PublicKey(x963Representation: publicKeyBytes)
        #expect(publicKey.isValidSignature(signature, for: Data("\(pieces[0]).\(pieces[1])".utf8)))
    }

    @Test func subscriptionsAreCheckedAndKeptAsEndpointAndKeys() throws {
        let browser = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        let auth = Data((0..<16).map { UInt8($0) })
        let json = #"{"endpoint":"https://push.example.org/s/1","expirationTime":null,"keys":{"p256dh":"\#(Base64URL.encode(browser))","auth":"\#(Base64URL.encode(auth))"}}"#
        let subscription = try WebPushSubscription(json: Data(json.utf8))
        #expect(subscription.p256dh == browser && subscription.auth == auth)
        #expect(try WebPushSubscription(endpoint: subscription.endpoint, token: subscription.token) == subscription)
        for bad in [
            #"{"endpoint":"ftp://x/1","keys":{"p256dh":"\#(Base64URL.encode(browser))","auth":"\#(Base64URL.encode(auth))"}}"#,
            #"{"endpoint":"https://x/1","keys":{"p256dh":"AAAA","auth":"\#(Base64URL.encode(auth))"}}"#,
            #"{"endpoint":"https://x/1","keys":{"p256dh":"\#(Base64URL.encode(browser))","auth":"AAAA"}}"#,
            #"{"endpoint":"https://x/1"}"#, "[]", "",
        ] {
            #expect(throws: WebPushError.self, "\(bad)") { try WebPushSubscription(json: Data(bad.utf8)) }
        }
        #expect(throws: WebPushError.self) { try WebPushSubscription(endpoint: "https://x/1", token: "a.b.c") }
        // The store refuses a Web Push channel without keys.
        #expect(throws: StoreError.self) {
            try ReminderRules.check(NewReminderChannel(kind: .webpush, target: "https://x/1", token: nil))
        }
        #expect(throws: Never.self) {
            try ReminderRules.check(NewReminderChannel(kind: .webpush, target: "https://x/1", token: subscription.token))
        }
    }

    @Test func aMessageFitsOneRecordAndTheBodyCarriesSaltRecordSizeAndKey() throws {
        let day = try #require(CalendarDay("2026-06-01"))
        var digest = ReminderDigest(household: 1, day: day, due: DueList(today: day, through: day, rooms: []), publicURL: nil)
        digest.items = (0..<400).map { index in
            ReminderDigest.Item(
                plantId: Int64(index), plant: "Plant number \(index) with a long name", room: nil, task: "water",
                action: "Water", dueOn: day, overdueDays: 0
            )
        }
        let message = try WebPushMessage(digest: digest).encoded()
        #expect(message.count <= WebPushEncryption.maximumPlaintext)
        let decoded = try JSONDecoder().decode(WebPushMessage.self, from: message)
        #expect(decoded.tasks == 400 && decoded.body.hasSuffix(" more") && decoded.body.hasPrefix("Water Plant number 0"))

        let browser = P256.KeyAgreement.PrivateKey()
        let subscription = try WebPushSubscription(
            endpoint: "https://push.example.org/s/1", p256dh: browser.publicKey.x963Representation, auth: Data(count: 16)
        )
        let salt = Data((0..<16).map { UInt8($0 + 100) })
        let body = try WebPushEncryption.encrypt(message, for: subscription, salt: salt)
        #expect(body.prefix(16) == salt)
        #expect(Array(body[16..<21]) == [0, 0, 0x10, 0, 65])
        #expect(body.count == 21 + 65 + message.count + 1 + 16)
        #expect(throws: WebPushError.self) {
            try WebPushEncryption.encrypt(Data(count: WebPushEncryption.maximumPlaintext + 1), for: subscription)
        }
    }
}
