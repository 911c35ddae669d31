import AsyncHTTPClient
import Foundation
import NIOCore
import PlantGuideCore
import PlantHTTP
import PlantStore

/// How a digest leaves the server: one HTTP POST, answered by a status code.
public struct ReminderTransport: Sendable {
    /// Sends `body` to `url` with `headers`; returns the answer's status, or throws when nothing was answered.
    public var post: @Sendable (_ url: String, _ headers: [(String, String)], _ body: Data) async throws -> Int

    /// A transport over any POST function (tests record what would be sent).
    public init(post: @escaping @Sendable (_ url: String, _ headers: [(String, String)], _ body: Data) async throws -> Int) {
        self.post = post
    }

    /// The real one: async-http-client, following no redirect (a redirect could lead past the target checks), 20 s
    /// without progress at most, the answer's body read up to 64 kB and dropped.
    public static let live = ReminderTransport { url, headers, body in
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "User-Agent", value: "PlantGuide reminders")
        let answer = try await OutgoingHTTP.downloadClient.fetch(request, uploading: body, timeout: .seconds(20), limit: 65_536)
        return answer.status
    }

    /// The request a channel gets for a digest: ntfy's headers and the text, the digest as JSON, or an encrypted push
    /// message whose action tokens count from `now` (the run's clock) and whose VAPID JWT is signed at `signedAt` (the
    /// real clock: push services check it).
    public static func request(
        for channel: ReminderChannel, digest: ReminderDigest, webPush: Result<WebPushSigner, WebPushError>, now: Date,
        signedAt: Date = Date()
    ) throws -> (headers: [(String, String)], body: Data) {
        var headers: [(String, String)] = []
        switch channel.kind {
        case .ntfy:
            if let token = channel.token { headers.append(("Authorization", "Bearer \(token)")) }
            headers += [
                ("Content-Type", "text/plain; charset=utf-8"), ("Title", "PlantGuide: \(digest.title)"),
                ("Priority", digest.hasOverdue ? "high" : "default"), ("Tags", "seedling"),
            ]
            if let link = digest.link {
                headers += [("Click", link), ("Actions", "view, Open care, \(link)")]
            }
            return (headers, Data(digest.text.utf8))
        case .webhook:
            if let token = channel.token { headers.append(("Authorization", "Bearer \(token)")) }
            headers.append(("Content-Type", "application/json"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (headers, try encoder.encode(digest))
        case .webpush:
            let signer = try webPush.get()
            guard let token = channel.token else { throw WebPushError("the channel has lost its subscription keys") }
            let subscription = try WebPushSubscription(endpoint: channel.target, token: token)
            guard let endpoint = URL(string: subscription.endpoint) else { throw WebPushError("the endpoint is not a URL") }
            let actions = ReminderActionToken.tokens(for: digest, key: signer.keys.actionKey, now: now)
            let message = try WebPushMessage(digest: digest, actions: actions).encoded()
            headers += [
                ("Authorization", try signer.keys.authorization(for: endpoint, subject: signer.subject, now: signedAt)),
                ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"),
                // A digest is stale by the next morning; a newer one replaces one not yet delivered.
                ("TTL", "43200"), ("Urgency", digest.hasOverdue ? "high" : "normal"), ("Topic", "plantguide-care"),
            ]
            return (headers, try WebPushEncryption.encrypt(message, for: subscription))
        case .email:
            throw SMTPError("an email is not an HTTP request")
        }
    }
}

/// What signs Web Push requests: the server's VAPID keys and the operator contact named in each JWT.
public struct WebPushSigner: Sendable {
    public var keys: VAPIDKeys
    /// A `mailto:` or https address push services may write to about this server.
    public var subject: String

    /// A signer with `keys` naming `subject`.
    public init(keys: VAPIDKeys, subject: String) {
        self.keys = keys
        self.subject = subject
    }
}

/// What the service worker receives in a push (decrypted): enough to show the notification without asking the server.
public struct WebPushMessage: Sendable, Hashable, Codable {
    /// The notification's title, e.g. "3 plant tasks today".
    public var title: String
    /// Its text: the tasks, room by room (cut to fit one push record).
    public var body: String
    /// The page a tap opens.
    public var url: String
    /// The household's day the digest is for.
    public var day: CalendarDay
    /// How many tasks it lists.
    public var tasks: Int
    /// The signed tokens the notification's buttons send to `POST /reminders/act`, by action (`done`, `tomorrow`);
    /// none for a digest of more than ``ReminderActionToken/maximumItems`` tasks.
    public var actions: [String: String]?

    /// The message of a digest, with its actions' tokens.
    public init(digest: ReminderDigest, actions: [String: String]? = nil) {
        self.actions = actions
        title = "PlantGuide: \(digest.title)"
        body = digest.items.map { item in
            let late = item.overdueDays > 0 ? " (\(item.overdueDays) d late)" : ""
            return "\(item.action) \(item.plant)\(late)"
        }.joined(separator: "\n")
        if digest.items.isEmpty { body = digest.text }
        url = digest.link ?? "/care"
        day = digest.day
        tasks = digest.items.count
    }

    /// The message as JSON, its body cut (at a line) so that the encoded message fits one push record.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let whole = try encoder.encode(self)
        guard whole.count > WebPushEncryption.maximumPlaintext else { return whole }
        // Whole lines while the encoded message fits, then a line saying how many more there are.
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        var message = self
        var kept = lines.count
        while kept > 0 {
            kept = max(0, min(kept - 1, kept * 9 / 10))
            message.body = lines.prefix(kept).joined(separator: "\n") + "\n… and \(lines.count - kept) more"
            let data = try encoder.encode(message)
            if data.count <= WebPushEncryption.maximumPlaintext { return data }
        }
        message.body = "… \(lines.count) tasks: open the Care page."
        return try encoder.encode(message)
    }
}
