import Foundation
import GRDB
import PlantGuideCore
import Testing
@testable import PlantStore
@testable import PlantStoreSQLite

/// Accounts, log-ins and failed log-ins (v12) on a real SQLite file.
@Suite struct AccountStoreTests {
    static let hash = "pbkdf2-sha256$1000$c2FsdA==$" + Data(repeating: 7, count: 32).base64EncodedString()
    static let otherHash = "pbkdf2-sha256$1000$cGVwcGVy$" + Data(repeating: 9, count: 32).base64EncodedString()
    static let start = Date(timeIntervalSince1970: 1_780_000_000)
    static func idHash(_ seed: Character) -> String { String(repeating: seed, count: 64) }

    @Test func theFirstAccountIsAnOwnerAndNamesIgnoreLetterCase() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        #expect(try database.userCount() == 0)
        let alice = try database.addUser(name: "alice", role: .member, passwordHash: Self.hash, now: Self.start)
        #expect(alice.role == .owner)
        #expect(alice.householdId == 1)
        let bob = try database.addUser(name: "Bob", role: .member, passwordHash: Self.hash, now: Self.start)
        #expect(bob.role == .member)
        #expect(try database.user(named: "BOB")?.id == bob.id)
        #expect(try database.users().map(\.name) == ["alice", "Bob"])
        #expect(throws: StoreError.self) { try database.addUser(name: "ALICE", role: .member, passwordHash: Self.hash, now: Self.start) }
        for bad in ["", "has space", "é", String(repeating: "a", count: 65), "semi;colon"] {
            #expect(throws: StoreError.self, "\(bad)") {
                try database.addUser(name: bad, role: .member, passwordHash: Self.hash, now: Self.start)
            }
        }
        // The schema refuses what the Swift check would, should anything bypass it.
        #expect(throws: (any Error).self) {
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO appUser (householdId, name, role, passwordHash, createdAt, passwordChangedAt) VALUES (1, 'x y', 'member', 'pbkdf2-sha256$1', 0, 0)")
            }
        }
        #expect(throws: (any Error).self) {
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO appUser (householdId, name, role, passwordHash, createdAt, passwordChangedAt) VALUES (1, 'carol', 'admin', 'pbkdf2-sha256$1', 0, 0)")
            }
        }
        #expect(try database.userCount() == 2)
    }

    @Test func theLastOwnerStays() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        _ = try database.addUser(name: "alice", role: .owner, passwordHash: Self.hash, now: Self.start)
        _ = try database.addUser(name: "bob", role: .member, passwordHash: Self.hash, now: Self.start)
        do {
            try database.removeUser(named: "Alice")
            Issue.record("the last owner was removed")
        } catch {
            guard case .lastOwner(let name) = error else { Issue.record("wrong error \(error)"); return }
            #expect(name == "alice")
        }
        #expect(throws: StoreError.self) { try database.setRole(.member, ofUser: "alice") }
        #expect(try database.user(named: "alice")?.role == .owner)
        try database.removeUser(named: "bob")
        #expect(try database.user(named: "bob") == nil)
        do {
            try database.removeUser(named: "bob")
            Issue.record("removed a missing account")
        } catch {
            guard case .userNotFound = error else { Issue.record("wrong error \(error)"); return }
        }
        // With a second owner, the first may go.
        _ = try database.addUser(name: "carol", role: .owner, passwordHash: Self.hash, now: Self.start)
        try database.removeUser(named: "alice")
        #expect(try database.users().map(\.name) == ["carol"])
    }

    @Test func aNewPasswordAndRemovalEndTheAccountsLogIns() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let alice = try database.addUser(name: "alice", role: .owner, passwordHash: Self.hash, now: Self.start)
        let bob = try database.addUser(name: "bob", role: .member, passwordHash: Self.hash, now: Self.start)
        let later = Self.start.addingTimeInterval(3600)
        try database.createSession(idHash: Self.idHash("a"), userId: alice.id, expiresAt: later, now: Self.start)
        try database.createSession(idHash: Self.idHash("b"), userId: alice.id, expiresAt: later, now: Self.start)
        try database.createSession(idHash: Self.idHash("c"), userId: bob.id, expiresAt: later, now: Self.start)
        let principal = try #require(try database.session(idHash: Self.idHash("a"), now: Self.start.addingTimeInterval(1)))
        #expect(principal.name == "alice" && principal.role == .owner && principal.userId == alice.id)
        try database.setPassword(user: "ALICE", passwordHash: Self.otherHash, now: Self.start.addingTimeInterval(2))
        #expect(try database.user(named: "alice")?.passwordHash == Self.otherHash)
        #expect(try database.session(idHash: Self.idHash("a"), now: Self.start.addingTimeInterval(3)) == nil)
        #expect(try database.session(idHash: Self.idHash("b"), now: Self.start.addingTimeInterval(3)) == nil)
        #expect(try database.session(idHash: Self.idHash("c"), now: Self.start.addingTimeInterval(3))?.name == "bob")
        try database.removeUser(named: "bob")
        #expect(try database.session(idHash: Self.idHash("c"), now: Self.start.addingTimeInterval(4)) == nil)
        // Log-out and "log out everywhere".
        try database.createSession(idHash: Self.idHash("d"), userId: alice.id, expiresAt: later, now: Self.start)
        try database.createSession(idHash: Self.idHash("e"), userId: alice.id, expiresAt: later, now: Self.start)
        try database.deleteSession(idHash: Self.idHash("d"))
        #expect(try database.session(idHash: Self.idHash("d"), now: Self.start) == nil)
        #expect(try database.session(idHash: Self.idHash("e"), now: Self.start) != nil)
        try database.deleteSessions(userId: alice.id)
        #expect(try database.session(idHash: Self.idHash("e"), now: Self.start) == nil)
    }

    @Test func logInsExpireAndAreSeenAtMostOnceAMinute() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        let alice = try database.addUser(name: "alice", role: .owner, passwordHash: Self.hash, now: Self.start)
        let expiry = Self.start.addingTimeInterval(600)
        try database.createSession(idHash: Self.idHash("a"), userId: alice.id, expiresAt: expiry, now: Self.start)
        #expect(try database.sessionLastSeen(idHash: Self.idHash("a")) == Self.start)
        _ = try database.session(idHash: Self.idHash("a"), now: Self.start.addingTimeInterval(30))
        #expect(try database.sessionLastSeen(idHash: Self.idHash("a")) == Self.start, "written again within a minute")
        _ = try database.session(idHash: Self.idHash("a"), now: Self.start.addingTimeInterval(61))
        #expect(try database.sessionLastSeen(idHash: Self.idHash("a")) == Self.start.addingTimeInterval(61))
        _ = try database.session(idHash: Self.idHash("a"), now: Self.start.addingTimeInterval(90))
        #expect(try database.sessionLastSeen(idHash: Self.idHash("a")) == Self.start.addingTimeInterval(61))
        #expect(try database.session(idHash: Self.idHash("a"), now: expiry.addingTimeInterval(-1))?.expiresAt == expiry)
        #expect(try database.session(idHash: Self.idHash("a"), now: expiry) == nil)
        // An expired log-in is dropped when the next one is stored.
        try database.createSession(idHash: Self.idHash("b"), userId: alice.id, expiresAt: expiry.addingTimeInterval(600), now: expiry)
        #expect(try database.sessionLastSeen(idHash: Self.idHash("a")) == nil)
        #expect(throws: StoreError.self) {
            try database.createSession(idHash: Self.idHash("c"), userId: alice.id, expiresAt: Self.start, now: Self.start)
        }
    }

    @Test func failedLogInsAreCountedPerScopeWithinTheWindow() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        for second in 0..<3 {
            try database.recordLoginFailure(.account, subject: "Alice", at: Self.start.addingTimeInterval(Double(second)))
        }
        try database.recordLoginFailure(.address, subject: "192.0.2.1", at: Self.start)
        try database.recordLoginFailure(.account, subject: "bob", at: Self.start)
        let window = Self.start.addingTimeInterval(-900)
        let alice = try database.loginFailures(.account, subject: "alice", since: window)
        #expect(alice.count == 3)
        #expect(alice.oldest == Self.start)
        #expect(try database.loginFailures(.address, subject: "192.0.2.1", since: window).count == 1)
        #expect(try database.loginFailures(.address, subject: "alice", since: window).count == 0, "scopes are apart")
        #expect(try database.loginFailures(.account, subject: "alice", since: Self.start.addingTimeInterval(0.5)).count == 2)
        try database.clearLoginFailures(.account, subject: "ALICE")
        #expect(try database.loginFailures(.account, subject: "alice", since: window).count == 0)
        #expect(try database.loginFailures(.account, subject: "bob", since: window).count == 1)
        #expect(try database.loginFailures(.address, subject: "192.0.2.1", since: window).count == 1)
    }

    @Test func theOldPasswordFileBecomesTheOwnerOnce() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let database = try home.open()
        try Data((Self.hash + "\n").utf8).write(to: home.directory.appending("web-password"))
        let imported = try #require(try database.importPasswordFile(in: home.directory, now: Self.start))
        #expect(imported.name == "owner" && imported.role == .owner && imported.passwordHash == Self.hash)
        #expect(!FileManager.default.fileExists(atPath: home.directory.appending("web-password").path))
        #expect(FileManager.default.fileExists(atPath: home.directory.appending("web-password.imported").path))
        #expect(try database.importPasswordFile(in: home.directory, now: Self.start) == nil)
        #expect(try database.userCount() == 1)
        // A damaged file is refused, not imported.
        try Data("not a hash\n".utf8).write(to: home.directory.appending("web-password"))
        #expect(throws: StoreError.self) { try database.importPasswordFile(in: home.directory, now: Self.start) }
        #expect(try database.userCount() == 1)
    }

    @Test func upgradingDropsTheAnonymousLogInsOfVersion7() throws {
        let home = try TemporaryHome()
        defer { home.cleanUp() }
        let queue = try DatabaseQueue(path: home.databaseURL.path)
        try Schema.migrator.migrate(queue, upTo: "v10")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO loginSession (idHash, expiresAt) VALUES (?, '2999-01-01 00:00:00.000')", arguments: [Self.idHash("a")])
        }
        try queue.close()
        let database = try home.open()
        #expect(try database.appliedMigrations().contains("v12"))
        #expect(try database.sessionLastSeen(idHash: Self.idHash("a")) == nil)
        #expect(try database.writer.read { db in try String.fetchOne(db, sql: "SELECT name FROM household WHERE id = 1") } == "Home")
    }
}
