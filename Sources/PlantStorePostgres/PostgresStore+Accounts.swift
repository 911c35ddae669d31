import Foundation
import PlantGuideCore
import PlantStore
import PostgresNIO

/// Households, accounts, log-ins and failed log-ins on PostgreSQL, with the rules of the SQLite store: names unique in
/// any letter case, a household's first account its owner, each household's last owner kept, a new password ending the
/// account's log-ins, a log-in's last-seen time written at most once a minute.
extension PostgresStore: AccountStore {
    private static let userColumns =
        "id, householdId, name, role, passwordHash, createdAt, passwordChangedAt, language, temperatureUnit, lastLanguage"
    private typealias UserRow = (Int64, Int64, String, String, String, Date, Date, String?, String?, String?)

    private static func account(_ row: UserRow) -> UserAccount {
        UserAccount(
            id: row.0, householdId: row.1, name: row.2, role: UserRole(rawValue: row.3) ?? .member, passwordHash: row.4,
            createdAt: row.5, passwordChangedAt: row.6,
            preferences: MemberPreferences(language: row.7, temperatureUnit: row.8.flatMap { TemperatureUnit(rawValue: $0) }),
            lastLanguage: row.9
        )
    }

    public func users() async throws(StoreError) -> [UserAccount] {
        try await withConnection("list the accounts") { connection in
            let rows = try await connection.query(
                "SELECT \(unescaped: Self.userColumns) FROM appUser ORDER BY lower(name COLLATE \"C\")", logger: self.logger
            )
            var accounts: [UserAccount] = []
            for try await row in rows.decode(UserRow.self) { accounts.append(Self.account(row)) }
            return accounts
        }
    }

    public func user(named name: String) async throws(StoreError) -> UserAccount? {
        try await withConnection("read the account") { connection in
            try await Self.user(named: name, on: connection, logger: self.logger)
        }
    }

    public func userCount() async throws(StoreError) -> Int {
        try await withConnection("count the accounts") { connection in
            let rows = try await connection.query("SELECT count(*) FROM appUser", logger: self.logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }

    // MARK: Households

    public func households() async throws(StoreError) -> [Household] {
        try await withConnection("list the households") { connection in
            let rows = try await connection.query("SELECT id, name, createdAt FROM household ORDER BY id", logger: self.logger)
            var found: [Household] = []
            for try await (id, name, created) in rows.decode((Int64, String, Date).self) {
                found.append(Household(id: id, name: name, createdAt: created))
            }
            return found
        }
    }

    public func household(named name: String) async throws(StoreError) -> Household? {
        try await withConnection("read the household") { connection in
            let rows = try await connection.query("""
                SELECT id, name, createdAt FROM household WHERE lower(name COLLATE "C") = lower(\(name)::text COLLATE "C")
                """, logger: self.logger)
            for try await (id, name, created) in rows.decode((Int64, String, Date).self) {
                return Household(id: id, name: name, createdAt: created)
            }
            return nil
        }
    }

    public func createHousehold(named name: String, now: Date) async throws(StoreError) -> Household {
        guard Household.isValidName(name) else {
            // The wording of SQLite's `Household.checkName`.
            throw .invalid(
                "'\(name)' is not a valid household name: use 1 to 80 characters, no control characters and no "
                    + "spaces at either end."
            )
        }
        let stamp = now.roundedToMilliseconds
        return try await withConnection("add the household") { connection in
            // One statement: of two replicas making the same name (in any letter case), the unique index lets one in.
            let rows = try await connection.query("""
                INSERT INTO household (name, createdAt) VALUES (\(name), \(stamp)) ON CONFLICT DO NOTHING RETURNING id
                """, logger: self.logger)
            var id: Int64?
            for try await value in rows.decode(Int64.self) { id = value }
            guard let id else {
                throw StoreError.invalid("A household named '\(name)' exists already (names ignore letter case).")
            }
            return Household(id: id, name: name, createdAt: stamp)
        }
    }

    public func users(household: Int64) async throws(StoreError) -> [UserAccount] {
        try await withConnection("list the household's accounts") { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.userColumns) FROM appUser WHERE householdId = \(household)
                ORDER BY lower(name COLLATE "C")
                """, logger: self.logger)
            var accounts: [UserAccount] = []
            for try await row in rows.decode(UserRow.self) { accounts.append(Self.account(row)) }
            return accounts
        }
    }

    // MARK: Accounts

    public func addUser(
        name: String, role: UserRole, passwordHash: String, householdId household: Int64, now: Date
    ) async throws(StoreError) -> UserAccount {
        guard UserAccount.isValidName(name) else { throw UserAccount.invalidName(name) }
        guard passwordHash.hasPrefix("pbkdf2-sha256$") else { throw .invalid("The password hash is not a PBKDF2-SHA256 one.") }
        let stamp = now.roundedToMilliseconds
        return try await withConnection("add the account") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                // One adder at a time decides who is a household's first account (and so its owner), on every replica.
                try await connection.query("LOCK TABLE appUser IN SHARE ROW EXCLUSIVE MODE", logger: self.logger)
                // Key-share locked, so the household cannot go before the account is in.
                let households = try await connection.query(
                    "SELECT id FROM household WHERE id = \(household) FOR KEY SHARE", logger: self.logger
                )
                var known = false
                for try await _ in households.decode(Int64.self) { known = true }
                guard known else { throw StoreError.householdNotFound("\(household)") }
                if try await Self.user(named: name, on: connection, logger: self.logger) != nil { throw StoreError.userExists(name) }
                let counted = try await connection.query(
                    "SELECT count(*) FROM appUser WHERE householdId = \(household)", logger: self.logger
                )
                var existing = 0
                for try await value in counted.decode(Int.self) { existing = value }
                let effective: UserRole = existing == 0 ? .owner : role
                let rows = try await connection.query("""
                    INSERT INTO appUser (householdId, name, role, passwordHash, createdAt, passwordChangedAt)
                    VALUES (\(household), \(name), \(effective.rawValue), \(passwordHash), \(stamp), \(stamp)) RETURNING id
                    """, logger: self.logger)
                var id: Int64 = 0
                for try await value in rows.decode(Int64.self) { id = value }
                return UserAccount(
                    id: id, householdId: household, name: name, role: effective, passwordHash: passwordHash, createdAt: stamp,
                    passwordChangedAt: stamp
                )
            }
        }
    }

    public func removeUser(named name: String, inHousehold household: Int64?) async throws(StoreError) {
        try await withConnection("remove the account") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                try await connection.query("LOCK TABLE appUser IN SHARE ROW EXCLUSIVE MODE", logger: self.logger)
                guard let account = try await Self.user(named: name, on: connection, logger: self.logger),
                      household == nil || account.householdId == household else {
                    throw StoreError.userNotFound(name)
                }
                if account.role == .owner {
                    let rows = try await connection.query("""
                        SELECT count(*) FROM appUser WHERE householdId = \(account.householdId) AND role = 'owner'
                        """, logger: self.logger)
                    var owners = 0
                    for try await value in rows.decode(Int.self) { owners = value }
                    if owners <= 1 { throw StoreError.lastOwner(account.name) }
                }
                try await connection.query("DELETE FROM appUser WHERE id = \(account.id)", logger: self.logger)
            }
        }
    }

    public func setPassword(
        user name: String, inHousehold household: Int64?, passwordHash: String, now: Date
    ) async throws(StoreError) {
        guard passwordHash.hasPrefix("pbkdf2-sha256$") else { throw .invalid("The password hash is not a PBKDF2-SHA256 one.") }
        let stamp = now.roundedToMilliseconds
        try await withConnection("set the password") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                // The account row is locked, so it cannot be removed (and its name given to another household's new
                // account) between this check and the change.
                guard let account = try await Self.user(named: name, lock: true, on: connection, logger: self.logger),
                      household == nil || account.householdId == household else {
                    throw StoreError.userNotFound(name)
                }
                try await connection.query("""
                    UPDATE appUser SET passwordHash = \(passwordHash), passwordChangedAt = \(stamp) WHERE id = \(account.id)
                    """, logger: self.logger)
                try await connection.query("DELETE FROM loginSession WHERE userId = \(account.id)", logger: self.logger)
            }
        }
    }

    public func setPreferences(
        _ preferences: MemberPreferences, user name: String, inHousehold household: Int64?
    ) async throws(StoreError) {
        if let language = preferences.language, !MemberPreferences.isValidLanguageCode(language) {
            throw .invalid("'\(language)' is not a language code: use 2 or 3 lower-case letters, such as fr.")
        }
        let unit = preferences.temperatureUnit?.rawValue
        try await withConnection("set the account's preferences") { connection in
            let rows = try await connection.query("""
                UPDATE appUser SET language = \(preferences.language), temperatureUnit = \(unit)
                WHERE lower(name COLLATE "C") = lower(\(name)::text COLLATE "C")
                    AND (\(household)::bigint IS NULL OR householdId = \(household)::bigint)
                RETURNING id
                """, logger: self.logger)
            var updated = 0
            for try await _ in rows.decode(Int64.self) { updated += 1 }
            guard updated == 1 else { throw StoreError.userNotFound(name) }
        }
    }

    public func noteLastLanguage(_ language: String, userId: Int64) async throws(StoreError) {
        guard MemberPreferences.isValidLanguageCode(language) else {
            throw .invalid("'\(language)' is not a language code: use 2 or 3 lower-case letters, such as fr.")
        }
        try await withConnection("note the account's language") { connection in
            _ = try await connection.query(
                "UPDATE appUser SET lastLanguage = \(language) WHERE id = \(userId)", logger: self.logger
            )
        }
    }

    public func createSession(idHash: String, userId: Int64, expiresAt: Date, now: Date) async throws(StoreError) {
        guard expiresAt > now else { throw .invalid("A log-in must end after it starts.") }
        let stamp = now.roundedToMilliseconds
        let expiry = expiresAt.roundedToMilliseconds
        try await withConnection("remember the log-in") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                try await connection.query("DELETE FROM loginSession WHERE expiresAt <= \(stamp)", logger: self.logger)
                try await connection.query("""
                    INSERT INTO loginSession (idHash, userId, createdAt, expiresAt, lastSeenAt)
                    VALUES (\(idHash), \(userId), \(stamp), \(expiry), \(stamp))
                    ON CONFLICT (idHash) DO UPDATE SET userId = excluded.userId, createdAt = excluded.createdAt,
                        expiresAt = excluded.expiresAt, lastSeenAt = excluded.lastSeenAt
                    """, logger: self.logger)
            }
        }
    }

    public func session(idHash: String, now: Date) async throws(StoreError) -> SessionPrincipal? {
        try await withConnection("read the log-in") { connection in
            let rows = try await connection.query("""
                SELECT appUser.id, appUser.name, appUser.role, appUser.householdId, loginSession.expiresAt, loginSession.lastSeenAt,
                    appUser.language, appUser.temperatureUnit, appUser.lastLanguage
                FROM loginSession JOIN appUser ON appUser.id = loginSession.userId
                WHERE loginSession.idHash = \(idHash)
                """, logger: self.logger)
            var found: (SessionPrincipal, Date)?
            for try await (id, name, role, household, expires, seen, language, unit, lastLanguage) in rows.decode(
                (Int64, String, String, Int64, Date, Date, String?, String?, String?).self
            ) {
                let preferences = MemberPreferences(language: language, temperatureUnit: unit.flatMap { TemperatureUnit(rawValue: $0) })
                found = (
                    SessionPrincipal(
                        userId: id, name: name, role: UserRole(rawValue: role) ?? .member, householdId: household,
                        expiresAt: expires, preferences: preferences, lastLanguage: lastLanguage
                    ),
                    seen
                )
            }
            guard let (principal, lastSeen) = found, principal.expiresAt > now else { return nil }
            if now.timeIntervalSince(lastSeen) >= StorePolicy.lastSeenResolution {
                let stamp = now.roundedToMilliseconds
                try await connection.query(
                    "UPDATE loginSession SET lastSeenAt = \(stamp) WHERE idHash = \(idHash)", logger: self.logger
                )
            }
            return principal
        }
    }

    public func deleteSession(idHash: String) async throws(StoreError) {
        try await withConnection("forget the log-in") { connection in
            _ = try await connection.query("DELETE FROM loginSession WHERE idHash = \(idHash)", logger: self.logger)
        }
    }

    public func recordLoginFailure(_ scope: LoginFailureScope, subject: String, at date: Date) async throws(StoreError) {
        let stamp = date.roundedToMilliseconds
        let dayAgo = stamp.addingTimeInterval(-86_400)
        let stored = scope.storedSubject(subject)
        try await withConnection("record the failed log-in") { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                try await connection.query("DELETE FROM loginFailure WHERE failedAt <= \(dayAgo)", logger: self.logger)
                try await connection.query("""
                    INSERT INTO loginFailure (scope, subject, failedAt) VALUES (\(scope.rawValue), \(stored), \(stamp))
                    """, logger: self.logger)
            }
        }
    }

    public func loginFailures(_ scope: LoginFailureScope, subject: String, since: Date) async throws(StoreError)
        -> (count: Int, oldest: Date?) {
        let stored = scope.storedSubject(subject)
        let after = since.roundedToMilliseconds
        return try await withConnection("count the failed log-ins") { connection in
            let rows = try await connection.query("""
                SELECT count(*), min(failedAt) FROM loginFailure
                WHERE scope = \(scope.rawValue) AND subject = \(stored) AND failedAt > \(after)
                """, logger: self.logger)
            var result: (count: Int, oldest: Date?) = (0, nil)
            for try await (count, oldest) in rows.decode((Int, Date?).self) { result = (count, count > 0 ? oldest : nil) }
            return result
        }
    }

    public func clearLoginFailures(_ scope: LoginFailureScope, subject: String) async throws(StoreError) {
        let stored = scope.storedSubject(subject)
        try await withConnection("clear the failed log-ins") { connection in
            _ = try await connection.query(
                "DELETE FROM loginFailure WHERE scope = \(scope.rawValue) AND subject = \(stored)", logger: self.logger
            )
        }
    }

    private static func user(
        named name: String, lock: Bool = false, on connection: PostgresConnection, logger: Logger
    ) async throws -> UserAccount? {
        let rows = try await connection.query("""
            SELECT \(unescaped: userColumns) FROM appUser WHERE lower(name COLLATE "C") = lower(\(name)::text COLLATE "C")
            \(unescaped: lock ? "FOR UPDATE" : "")
            """, logger: logger
        )
        for try await row in rows.decode(UserRow.self) { return account(row) }
        return nil
    }
}
