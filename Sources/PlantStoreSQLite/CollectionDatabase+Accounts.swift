import Foundation
import GRDB
import PlantGuideCore
import PlantStore

extension CollectionDatabase {
    private static let userColumns =
        "id, householdId, name, role, passwordHash, createdAt, passwordChangedAt, language, temperatureUnit, lastLanguage"

    private static func account(_ row: Row) -> UserAccount {
        UserAccount(
            id: row[0], householdId: row[1], name: row[2], role: UserRole(rawValue: row[3]) ?? .member,
            passwordHash: row[4], createdAt: DatabaseTimestamp.date(row, 5), passwordChangedAt: DatabaseTimestamp.date(row, 6),
            preferences: MemberPreferences(language: row[7], temperatureUnit: (row[8] as String?).flatMap { TemperatureUnit(rawValue: $0) }),
            lastLanguage: row[9]
        )
    }

    /// Every account, by name.
    public func users() throws(StoreError) -> [UserAccount] {
        try read("list the accounts") { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.userColumns) FROM appUser ORDER BY name COLLATE NOCASE")
                .map(Self.account)
        }
    }

    /// The account with this name, in any letter case; `nil` when there is none.
    public func user(named name: String) throws(StoreError) -> UserAccount? {
        try read("read the account") { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.userColumns) FROM appUser WHERE name = ?", arguments: [name])
                .map(Self.account)
        }
    }

    /// How many accounts there are.
    public func userCount() throws(StoreError) -> Int {
        try read("count the accounts") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM appUser") ?? 0 }
    }

    /// Adds an account to the default household (1, `Home`). Its first account is always an owner, whatever `role` says.
    /// - Throws: ``StoreError/userExists(_:)`` when the name is taken (in any letter case); ``StoreError/invalid(_:)``
    ///   for a name outside 1–64 of `A-Z a-z 0-9 . _ -` or a hash that is not a PBKDF2 one.
    public func addUser(name: String, role: UserRole, passwordHash: String, now: Date) throws(StoreError) -> UserAccount {
        try addUser(name: name, role: role, passwordHash: passwordHash, householdId: StorePolicy.defaultHouseholdId, now: now)
    }

    /// Adds an account to a household. A household's first account is always its owner, whatever `role` says.
    /// - Throws: ``StoreError/householdNotFound(_:)`` when no household has that id; ``StoreError/userExists(_:)`` when
    ///   the name is taken (in any letter case, in any household); ``StoreError/invalid(_:)`` for a name outside 1–64 of
    ///   `A-Z a-z 0-9 . _ -` or a hash that is not a PBKDF2 one.
    public func addUser(
        name: String, role: UserRole, passwordHash: String, householdId: Int64, now: Date
    ) throws(StoreError) -> UserAccount {
        guard UserAccount.isValidName(name) else { throw UserAccount.invalidName(name) }
        guard passwordHash.hasPrefix("pbkdf2-sha256$") else { throw .invalid("The password hash is not a PBKDF2-SHA256 one.") }
        let stamp = now.roundedToMilliseconds
        return try write("add the account") { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM household WHERE id = ?)", arguments: [householdId]) == true
            else { throw StoreError.householdNotFound("\(householdId)") }
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM appUser WHERE name = ?)", arguments: [name]) == true {
                throw StoreError.userExists(name)
            }
            let isFirst = try Int.fetchOne(db, sql: "SELECT count(*) FROM appUser WHERE householdId = ?", arguments: [householdId]) == 0
            let effective: UserRole = isFirst ? .owner : role
            try db.execute(
                sql: """
                    INSERT INTO appUser (householdId, name, role, passwordHash, createdAt, passwordChangedAt)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [householdId, name, effective.rawValue, passwordHash, stamp, stamp]
            )
            return UserAccount(
                id: db.lastInsertedRowID, householdId: householdId, name: name, role: effective,
                passwordHash: passwordHash, createdAt: stamp, passwordChangedAt: stamp
            )
        }
    }

    /// The accounts of one household, by name (none for an unknown household).
    public func users(household: Int64) throws(StoreError) -> [UserAccount] {
        try read("list the household's accounts") { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.userColumns) FROM appUser WHERE householdId = ? ORDER BY name COLLATE NOCASE",
                arguments: [household]
            ).map(Self.account)
        }
    }

    // MARK: - Households

    private static func household(_ row: Row) -> Household {
        Household(id: row[0], name: row[1], createdAt: DatabaseTimestamp.date(row, 2))
    }

    /// Every household, by id.
    public func households() throws(StoreError) -> [Household] {
        try read("list the households") { db in
            try Row.fetchAll(db, sql: "SELECT id, name, createdAt FROM household ORDER BY id").map(Self.household)
        }
    }

    /// The household with this name in any letter case (ASCII letters fold, as in account names), or `nil`.
    public func household(named name: String) throws(StoreError) -> Household? {
        try read("read the household") { db in
            try Row.fetchOne(db, sql: "SELECT id, name, createdAt FROM household WHERE name = ?", arguments: [name]).map(Self.household)
        }
    }

    /// Makes a household.
    /// - Throws: ``StoreError/invalid(_:)`` for a name that is not 1–80 characters without surrounding spaces or control
    ///   characters, or one another household has (in any letter case).
    public func createHousehold(named name: String, now: Date) throws(StoreError) -> Household {
        try Household.checkName(name)
        let stamp = now.roundedToMilliseconds
        return try write("make the household") { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM household WHERE name = ?)", arguments: [name]) == true {
                throw Household.nameTaken(name)
            }
            try db.execute(sql: "INSERT INTO household (name, createdAt) VALUES (?, ?)", arguments: [name, stamp])
            return Household(id: db.lastInsertedRowID, name: name, createdAt: stamp)
        }
    }

    /// Removes an account and its log-ins; with `household`, only an account of that household.
    /// - Throws: ``StoreError/userNotFound(_:)`` (also for another household's account); ``StoreError/lastOwner(_:)`` when
    ///   it is its household's last owner.
    public func removeUser(named name: String, inHousehold household: Int64?) throws(StoreError) {
        try write("remove the account") { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT id, householdId, role, name FROM appUser WHERE name = ? AND (?2 IS NULL OR householdId = ?2)",
                arguments: [name, household]
            ) else { throw StoreError.userNotFound(name) }
            let id: Int64 = row[0]
            let household: Int64 = row[1]
            let role: String = row[2]
            if role == UserRole.owner.rawValue {
                let owners = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM appUser WHERE householdId = ? AND role = 'owner'", arguments: [household]
                ) ?? 0
                if owners <= 1 { throw StoreError.lastOwner(row[3]) }
            }
            try db.execute(sql: "DELETE FROM appUser WHERE id = ?", arguments: [id])
        }
    }

    /// Removes an account of any household and its log-ins.
    public func removeUser(named name: String) throws(StoreError) {
        try removeUser(named: name, inHousehold: nil)
    }

    /// Changes an account's role.
    /// - Throws: ``StoreError/userNotFound(_:)``; ``StoreError/lastOwner(_:)`` when that would demote the last owner.
    public func setRole(_ role: UserRole, ofUser name: String) throws(StoreError) {
        try write("change the account's role") { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT id, householdId, role, name FROM appUser WHERE name = ?", arguments: [name]
            ) else { throw StoreError.userNotFound(name) }
            let household: Int64 = row[1]
            if role == .member, (row[2] as String) == UserRole.owner.rawValue {
                let owners = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM appUser WHERE householdId = ? AND role = 'owner'", arguments: [household]
                ) ?? 0
                if owners <= 1 { throw StoreError.lastOwner(row[3]) }
            }
            try db.execute(sql: "UPDATE appUser SET role = ? WHERE id = ?", arguments: [role.rawValue, row[0] as Int64])
        }
    }

    /// Sets an account's password hash and ends all its log-ins, on every server that shares this database; with
    /// `household`, only an account of that household.
    /// - Throws: ``StoreError/userNotFound(_:)`` (also for another household's account).
    public func setPassword(
        user name: String, inHousehold household: Int64?, passwordHash: String, now: Date
    ) throws(StoreError) {
        guard passwordHash.hasPrefix("pbkdf2-sha256$") else { throw .invalid("The password hash is not a PBKDF2-SHA256 one.") }
        try write("set the password") { db in
            guard let id = try Int64.fetchOne(
                db, sql: "SELECT id FROM appUser WHERE name = ? AND (?2 IS NULL OR householdId = ?2)", arguments: [name, household]
            ) else {
                throw StoreError.userNotFound(name)
            }
            try db.execute(
                sql: "UPDATE appUser SET passwordHash = ?, passwordChangedAt = ? WHERE id = ?",
                arguments: [passwordHash, now.roundedToMilliseconds, id]
            )
            try db.execute(sql: "DELETE FROM loginSession WHERE userId = ?", arguments: [id])
        }
    }

    /// Sets how an account's member reads PlantGuide; with `household`, only an account of that household.
    /// - Throws: ``StoreError/userNotFound(_:)`` (also for another household's account); ``StoreError/invalid(_:)`` for
    ///   a language that is not 2–3 lower-case letters.
    public func setPreferences(_ preferences: MemberPreferences, user name: String, inHousehold household: Int64?) throws(StoreError) {
        if let language = preferences.language, !MemberPreferences.isValidLanguageCode(language) {
            throw .invalid("'\(language)' is not a language code: use 2 or 3 lower-case letters, such as fr.")
        }
        try write("set the account's preferences") { db in
            try db.execute(
                sql: """
                    UPDATE appUser SET language = ?, temperatureUnit = ?
                    WHERE name = ? AND (?4 IS NULL OR householdId = ?4)
                    """,
                arguments: [preferences.language, preferences.temperatureUnit?.rawValue, name, household]
            )
            guard db.changesCount == 1 else { throw StoreError.userNotFound(name) }
        }
    }

    /// Notes the language of an account's latest web request.
    /// - Throws: ``StoreError/invalid(_:)`` for a language that is not 2–3 lower-case letters.
    public func noteLastLanguage(_ language: String, userId: Int64) throws(StoreError) {
        guard MemberPreferences.isValidLanguageCode(language) else {
            throw .invalid("'\(language)' is not a language code: use 2 or 3 lower-case letters, such as fr.")
        }
        try write("note the account's language") { db in
            try db.execute(sql: "UPDATE appUser SET lastLanguage = ? WHERE id = ?", arguments: [language, userId])
        }
    }

    /// Sets the password hash of an account of any household and ends its log-ins.
    public func setPassword(user name: String, passwordHash: String, now: Date) throws(StoreError) {
        try setPassword(user: name, inHousehold: nil, passwordHash: passwordHash, now: now)
    }

    // MARK: - Log-ins

    /// Remembers a log-in of `userId` until `expiresAt`, by the SHA-256 of its session id (the id itself is never
    /// stored). Expired log-ins are dropped in the same transaction.
    public func createSession(idHash: String, userId: Int64, expiresAt: Date, now: Date) throws(StoreError) {
        guard expiresAt > now else { throw .invalid("A log-in must end after it starts.") }
        let stamp = now.roundedToMilliseconds
        try write("remember the log-in") { db in
            try db.execute(sql: "DELETE FROM loginSession WHERE expiresAt <= ?", arguments: [stamp])
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO loginSession (idHash, userId, createdAt, expiresAt, lastSeenAt)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [idHash, userId, stamp, expiresAt.roundedToMilliseconds, stamp]
            )
        }
    }

    /// Who a log-in belongs to, or `nil` when it is unknown, expired or its account is gone. Marks it seen, but
    /// writes that at most once per ``StorePolicy/lastSeenResolution``, so most checks are one read.
    public func session(idHash: String, now: Date) throws(StoreError) -> SessionPrincipal? {
        let found = try read("read the log-in") { db -> (SessionPrincipal, Date)? in
            guard let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT appUser.id, appUser.name, appUser.role, appUser.householdId, loginSession.expiresAt,
                        loginSession.lastSeenAt, appUser.language, appUser.temperatureUnit, appUser.lastLanguage
                    FROM loginSession JOIN appUser ON appUser.id = loginSession.userId
                    WHERE loginSession.idHash = ?
                    """,
                arguments: [idHash]
            ) else { return nil }
            let principal = SessionPrincipal(
                userId: row[0], name: row[1], role: UserRole(rawValue: row[2]) ?? .member, householdId: row[3],
                expiresAt: DatabaseTimestamp.date(row, 4),
                preferences: MemberPreferences(language: row[6], temperatureUnit: (row[7] as String?).flatMap { TemperatureUnit(rawValue: $0) }),
                lastLanguage: row[8]
            )
            return (principal, DatabaseTimestamp.date(row, 5))
        }
        guard let (principal, lastSeen) = found, principal.expiresAt > now else { return nil }
        if now.timeIntervalSince(lastSeen) >= StorePolicy.lastSeenResolution {
            try write("mark the log-in seen") { db in
                try db.execute(
                    sql: "UPDATE loginSession SET lastSeenAt = ? WHERE idHash = ?", arguments: [now.roundedToMilliseconds, idHash]
                )
            }
        }
        return principal
    }

    /// When a log-in was last seen (to the minute), or `nil` when there is none.
    public func sessionLastSeen(idHash: String) throws(StoreError) -> Date? {
        try read("read the log-in") { db in
            try Row.fetchOne(db, sql: "SELECT lastSeenAt FROM loginSession WHERE idHash = ?", arguments: [idHash])
                .map { DatabaseTimestamp.date($0, 0) }
        }
    }

    /// Forgets a log-in (log-out).
    public func deleteSession(idHash: String) throws(StoreError) {
        try write("forget the log-in") { db in
            try db.execute(sql: "DELETE FROM loginSession WHERE idHash = ?", arguments: [idHash])
        }
    }

    /// Ends every log-in of an account.
    public func deleteSessions(userId: Int64) throws(StoreError) {
        try write("end the account's log-ins") { db in
            try db.execute(sql: "DELETE FROM loginSession WHERE userId = ?", arguments: [userId])
        }
    }

    // MARK: - Failed log-ins

    /// The subject as stored: account names lower-cased (names ignore case), at most 128 characters.
    private static func failureSubject(_ scope: LoginFailureScope, _ subject: String) -> String {
        scope.storedSubject(subject)
    }

    /// Records a failed log-in against an account name or a client address, and drops failures older than a day.
    public func recordLoginFailure(_ scope: LoginFailureScope, subject: String, at date: Date) throws(StoreError) {
        let stamp = date.roundedToMilliseconds
        try write("record the failed log-in") { db in
            try db.execute(sql: "DELETE FROM loginFailure WHERE failedAt <= ?", arguments: [stamp.addingTimeInterval(-86_400)])
            try db.execute(
                sql: "INSERT INTO loginFailure (scope, subject, failedAt) VALUES (?, ?, ?)",
                arguments: [scope.rawValue, Self.failureSubject(scope, subject), stamp]
            )
        }
    }

    /// The failed log-ins against a subject since a date, and the oldest of them.
    public func loginFailures(
        _ scope: LoginFailureScope, subject: String, since: Date
    ) throws(StoreError) -> (count: Int, oldest: Date?) {
        try read("count the failed log-ins") { db in
            let row = try Row.fetchOne(
                db,
                sql: "SELECT count(*), min(failedAt) FROM loginFailure WHERE scope = ? AND subject = ? AND failedAt > ?",
                arguments: [scope.rawValue, Self.failureSubject(scope, subject), since.roundedToMilliseconds]
            )
            guard let row, let count = row[0] as Int?, count > 0 else { return (0, nil) }
            return (count, DatabaseTimestamp.date(row, 1))
        }
    }

    /// Forgets the failed log-ins against a subject (after a log-in succeeds).
    public func clearLoginFailures(_ scope: LoginFailureScope, subject: String) throws(StoreError) {
        try write("clear the failed log-ins") { db in
            try db.execute(
                sql: "DELETE FROM loginFailure WHERE scope = ? AND subject = ?",
                arguments: [scope.rawValue, Self.failureSubject(scope, subject)]
            )
        }
    }

    // MARK: - The password file of earlier versions

    /// Imports the single web password of earlier versions (`web-password` in `directory`) once, as the owner
    /// account `owner` with the same hash, and renames the file `web-password.imported`. Does nothing when the file
    /// is absent; when accounts exist already, only renames it. Returns the account created, if any.
    @discardableResult
    public func importPasswordFile(in directory: DataDirectory, now: Date) throws(StoreError) -> UserAccount? {
        let file = directory.appending("web-password")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw .file(path: file.path, reason: "cannot be read (\(error.localizedDescription))")
        }
        let hash = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard hash.hasPrefix("pbkdf2-sha256$"), hash.split(separator: "$").count == 4 else {
            throw .file(path: file.path, reason: "is not a stored password hash; set it again with `plantguide user passwd owner`")
        }
        var created: UserAccount?
        if try userCount() == 0 {
            created = try addUser(name: "owner", role: .owner, passwordHash: hash, now: now)
        }
        let target = directory.appending("web-password.imported")
        do {
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.moveItem(at: file, to: target)
        } catch {
            throw .file(path: file.path, reason: "was imported but could not be renamed (\(error.localizedDescription))")
        }
        return created
    }
}
