import AsyncHTTPClient
import Foundation
import NIOCore
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

    /// The request a channel gets for a digest: ntfy's headers and the text, or the digest as JSON.
    public static func request(for channel: ReminderChannel, digest: ReminderDigest) throws -> (headers: [(String, String)], body: Data) {
        var headers: [(String, String)] = []
        if let token = channel.token { headers.append(("Authorization", "Bearer \(token)")) }
        switch channel.kind {
        case .ntfy:
            headers += [
                ("Content-Type", "text/plain; charset=utf-8"), ("Title", "PlantGuide: \(digest.title)"),
                ("Priority", digest.hasOverdue ? "high" : "default"), ("Tags", "seedling"),
            ]
            if let link = digest.link {
                headers += [("Click", link), ("Actions", "view, Open care, \(link)")]
            }
            return (headers, Data(digest.text.utf8))
        case .webhook:
            headers.append(("Content-Type", "application/json"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (headers, try encoder.encode(digest))
        }
    }
}
