import Foundation
import Hummingbird
import HummingbirdTesting
import PlantGuideLive
import Testing
@testable import PlantGuideServer

/// A phone calendar polls the care calendar at a secret address while the server requires a log-in; Settings makes,
/// replaces and turns off that address.
@Suite struct CalendarFeedTests {
    @Test func theSecretAddressServesTheCalendarWithoutALogInUntilRevoked() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-feed-\(UUID().uuidString)/token")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let feed = CalendarFeed(file: file)
        let store = FakeStore(now: Date())
        let dependencies = ServerDependencies(catalog: fixtureCatalog, care: store.care, calendarFeed: feed)
        // The owner's own browser on this machine (no password on loopback) manages the address in Settings…
        let owner = makeApp(dependencies: dependencies)
        // …while the same server, exposed, asks everyone else to log in.
        let exposed = makeApp(
            configuration: ServerConfiguration(host: "0.0.0.0", passwordHash: PasswordHash(password: "correct horse battery", iterations: 1_000)),
            dependencies: dependencies
        )
        try await exposed.test(.router) { client in
            try await client.execute(uri: "/care/feed/\(String(repeating: "a", count: 64)).ics", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        try await owner.test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Make a calendar address"))
            }
            let (headers, body) = session.form([("action", "renew")])
            try await client.execute(uri: "/settings/calendar-feed", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
        }
        let token = try #require(try await feed.current())
        #expect(try await CalendarFeed(file: file).current() == token, "the address survives a restart")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try await owner.test(.router) { client in
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains("/care/feed/\(token).ics"))
                #expect(response.text.contains("webcal://"))
            }
        }
        try await exposed.test(.router) { client in
            try await client.execute(uri: "/care/feed/\(token).ics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/calendar; charset=utf-8")
                #expect(response.text.hasPrefix("BEGIN:VCALENDAR"))
            }
            // The logged-in calendar and everything else still need the log-in; a near-miss token is not found.
            try await client.execute(uri: "/care/calendar.ics", method: .get) { response in
                #expect(response.status == .found)
            }
            // The token with its last digit changed.
            let wrong = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
            try await client.execute(uri: "/care/feed/\(wrong).ics", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/care/feed/\(token)", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        try await owner.test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("action", "revoke")])
            try await client.execute(uri: "/settings/calendar-feed", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
        }
        #expect(try await feed.current() == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        try await exposed.test(.router) { client in
            try await client.execute(uri: "/care/feed/\(token).ics", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
