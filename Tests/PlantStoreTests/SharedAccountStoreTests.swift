import Foundation
import PlantStore
import Testing

/// Accounts and log-ins through the store protocol, on every backend: the rules the web log-in relies on.
@Suite struct SharedAccountStoreTests {
    private let now = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00 UTC
    private let hash = "pbkdf2-sha256$600000$c2FsdA$aGFzaA"

    @Test(arguments: StateBackend.allCases)
    func theFirstAccountOwnsNamesIgnoreCaseAndTheLastOwnerStays(_ backend: StateBackend) async throws {
        let now = now, hash = hash
        try await backend.withStores(1) { stores in
            let store = stores[0]
            #expect(try await store.userCount() == 0)
            let alice = try await store.addUser(name: "Alice", role: .member, passwordHash: hash, now: now)
            #expect(alice.role == .owner)
            #expect(alice.householdId == 1)
            let bob = try await store.addUser(name: "bob", role: .member, passwordHash: hash, now: now)
            #expect(bob.role == .member)
            await #expect(throws: StoreError.self) { try await store.addUser(name: "ALICE", role: .member, passwordHash: hash, now: now) }
            await #expect(throws: StoreError.self) { try await store.addUser(name: "no spaces", role: .member, passwordHash: hash, now: now) }
            #expect(try await store.user(named: "aLiCe")?.id == alice.id)
            #expect(try await store.users().map(\.name) == ["Alice", "bob"])
            await #expect(throws: StoreError.self) { try await store.removeUser(named: "alice") }
            try await store.removeUser(named: "BOB")
            #expect(try await store.userCount() == 1)
            await #expect(throws: StoreError.self) { try await store.removeUser(named: "bob") }
        }
    }

    /// A member's language and temperature unit are kept per account, read with every log-in (so the next page uses
    /// them on any replica), and set back to automatic; the language of their last request is noted beside them.
    @Test(arguments: StateBackend.allCases)
    func preferencesAreKeptPerAccountAndReadWithTheLogIn(_ backend: StateBackend) async throws {
        let now = now, hash = hash
        let session = String(repeating: "c", count: 64)
        try await backend.withStores(2) { stores in
            let alice = try await stores[0].addUser(name: "alice", role: .owner, passwordHash: hash, now: now)
            let bob = try await stores[0].addUser(name: "bob", role: .member, passwordHash: hash, now: now)
            #expect(alice.preferences == MemberPreferences())
            #expect(try await stores[1].user(named: "alice")?.preferences == MemberPreferences())
            try await stores[0].createSession(idHash: session, userId: alice.id, expiresAt: now.addingTimeInterval(3600), now: now)

            let french = MemberPreferences(language: "fr", temperatureUnit: .fahrenheit)
            try await stores[0].setPreferences(french, user: "ALICE", inHousehold: 1)
            #expect(try await stores[1].user(named: "alice")?.preferences == french)
            #expect(try await stores[1].user(named: "bob")?.preferences == MemberPreferences())
            let principal = try await stores[1].session(idHash: session, now: now)
            #expect(principal?.preferences == french)
            #expect(principal?.lastLanguage == nil)
            // Setting preferences keeps the log-in, unlike a new password.
            #expect(principal != nil)

            try await stores[1].noteLastLanguage("de", userId: alice.id)
            #expect(try await stores[0].session(idHash: session, now: now)?.lastLanguage == "de")
            #expect(try await stores[0].users().first { $0.id == alice.id }?.lastLanguage == "de")

            // Back to automatic, one part at a time.
            try await stores[0].setPreferences(MemberPreferences(temperatureUnit: .celsius), user: "alice", inHousehold: nil)
            #expect(try await stores[1].user(named: "alice")?.preferences == MemberPreferences(temperatureUnit: .celsius))

            // Refused: another household's account, an unknown one, a code that is not a language.
            let joneses = try await stores[0].createHousehold(named: "Joneses", now: now)
            await #expect(throws: StoreError.self) {
                try await stores[0].setPreferences(french, user: "bob", inHousehold: joneses.id)
            }
            await #expect(throws: StoreError.self) { try await stores[0].setPreferences(french, user: "nobody", inHousehold: nil) }
            await #expect(throws: StoreError.self) {
                try await stores[0].setPreferences(MemberPreferences(language: "FR"), user: "bob", inHousehold: nil)
            }
            await #expect(throws: StoreError.self) { try await stores[0].noteLastLanguage("en-US", userId: bob.id) }
            #expect(try await stores[1].user(named: "bob")?.preferences == MemberPreferences())
            #expect(try await stores[1].user(named: "bob")?.lastLanguage == nil)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func logInsExpireAndANewPasswordEndsThem(_ backend: StateBackend) async throws {
        let now = now, hash = hash
        let first = String(repeating: "a", count: 64), second = String(repeating: "b", count: 64)
        try await backend.withStores(2) { stores in
            let alice = try await stores[0].addUser(name: "alice", role: .owner, passwordHash: hash, now: now)
            try await stores[0].createSession(idHash: first, userId: alice.id, expiresAt: now.addingTimeInterval(3600), now: now)
            try await stores[0].createSession(idHash: second, userId: alice.id, expiresAt: now.addingTimeInterval(60), now: now)
            // The other connection (replica) sees both log-ins.
            #expect(try await stores[1].session(idHash: first, now: now.addingTimeInterval(30))?.name == "alice")
            #expect(try await stores[1].session(idHash: second, now: now.addingTimeInterval(30))?.role == .owner)
            // Past its end a log-in is gone.
            #expect(try await stores[1].session(idHash: second, now: now.addingTimeInterval(61)) == nil)
            // A new password, set on one, ends the log-ins on both.
            try await stores[1].setPassword(user: "ALICE", passwordHash: hash + "2", now: now.addingTimeInterval(90))
            #expect(try await stores[0].session(idHash: first, now: now.addingTimeInterval(120)) == nil)
            try await stores[0].createSession(idHash: first, userId: alice.id, expiresAt: now.addingTimeInterval(3600), now: now)
            try await stores[1].deleteSession(idHash: first)
            #expect(try await stores[0].session(idHash: first, now: now) == nil)
            await #expect(throws: StoreError.self) {
                try await stores[0].createSession(idHash: first, userId: alice.id, expiresAt: now, now: now)
            }
        }
    }

    @Test(arguments: StateBackend.allCases)
    func failedLogInsAreCountedPerAccountAndAddressAndCleared(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withStores(2) { stores in
            for minute in 0..<3 {
                let time = now.addingTimeInterval(Double(minute) * 60)
                try await stores[minute % 2].recordLoginFailure(.account, subject: "Alice", at: time)
                try await stores[minute % 2].recordLoginFailure(.address, subject: "192.0.2.7", at: time)
            }
            let account = try await stores[0].loginFailures(.account, subject: "alice", since: now.addingTimeInterval(-1))
            #expect(account.count == 3)
            #expect(account.oldest.map { abs($0.timeIntervalSince(now)) < 0.001 } == true)
            // Only those after `since` count.
            #expect(try await stores[1].loginFailures(.account, subject: "ALICE", since: now.addingTimeInterval(30)).count == 2)
            #expect(try await stores[1].loginFailures(.address, subject: "192.0.2.7", since: now.addingTimeInterval(-1)).count == 3)
            try await stores[1].clearLoginFailures(.account, subject: "alice")
            let cleared = try await stores[0].loginFailures(.account, subject: "alice", since: now.addingTimeInterval(-1))
            #expect(cleared.count == 0)
            #expect(cleared.oldest == nil)
            #expect(try await stores[0].loginFailures(.address, subject: "192.0.2.7", since: now.addingTimeInterval(-1)).count == 3)
        }
    }
}
