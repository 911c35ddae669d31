import Foundation

/// Accounts, log-in sessions and failed log-ins, as the web app's log-in reads them on every request. Async, as
/// ``CollectionStore`` is, so a database server can keep them for every replica. `CollectionDatabase` conforms with
/// its synchronous methods.
public protocol AccountStore: Sendable {
    /// Every household, by id (household 1, `Home`, always exists).
    func households() async throws(StoreError) -> [Household]
    /// The household with this name (any letter case), or `nil`.
    func household(named name: String) async throws(StoreError) -> Household?
    /// Makes a household (1–80 characters, unique in any letter case).
    /// - Throws: ``StoreError/invalid(_:)`` when the name is empty, too long or taken.
    func createHousehold(named name: String, now: Date) async throws(StoreError) -> Household
    /// Every account, by name.
    func users() async throws(StoreError) -> [UserAccount]
    /// The accounts of one household, by name.
    func users(household: Int64) async throws(StoreError) -> [UserAccount]
    /// The account with this name (any letter case), or `nil`.
    func user(named name: String) async throws(StoreError) -> UserAccount?
    /// How many accounts there are.
    func userCount() async throws(StoreError) -> Int
    /// Adds an account to a household; a household's first account is always its owner.
    /// - Throws: ``StoreError/householdNotFound(_:)`` when no household has that id.
    @discardableResult
    func addUser(name: String, role: UserRole, passwordHash: String, householdId: Int64, now: Date) async throws(StoreError)
        -> UserAccount
    /// Removes an account and its log-ins; a household's last owner stays. With `household`, an account of another
    /// household is not found: the check and the removal are one transaction, so a name that changes hands in between
    /// cannot make an owner remove another household's account.
    func removeUser(named name: String, inHousehold household: Int64?) async throws(StoreError)
    /// Sets an account's password and ends its log-ins; with `household`, only an account of that household (another
    /// household's is not found, checked in the same transaction).
    func setPassword(user name: String, inHousehold household: Int64?, passwordHash: String, now: Date) async throws(StoreError)
    /// Sets how an account's member reads PlantGuide (language and temperature unit, `nil` for automatic); with
    /// `household`, only an account of that household. Its log-ins stay.
    /// - Throws: ``StoreError/userNotFound(_:)``; ``StoreError/invalid(_:)`` for a language that is not 2–3 lower-case
    ///   letters.
    func setPreferences(_ preferences: MemberPreferences, user name: String, inHousehold household: Int64?) async throws(StoreError)
    /// Notes the language of an account's latest web request (a language code), for texts sent while they are away.
    /// Callers write it only when it changed (``SessionPrincipal/lastLanguage``).
    func noteLastLanguage(_ language: String, userId: Int64) async throws(StoreError)
    /// Remembers a log-in by the SHA-256 of its session id.
    func createSession(idHash: String, userId: Int64, expiresAt: Date, now: Date) async throws(StoreError)
    /// Who is logged in with this session, while it has not expired.
    func session(idHash: String, now: Date) async throws(StoreError) -> SessionPrincipal?
    /// Ends one log-in.
    func deleteSession(idHash: String) async throws(StoreError)
    /// Counts a failed log-in against an account name or a client address.
    func recordLoginFailure(_ scope: LoginFailureScope, subject: String, at date: Date) async throws(StoreError)
    /// The failed log-ins against a subject since a date, and the oldest of them.
    func loginFailures(_ scope: LoginFailureScope, subject: String, since: Date) async throws(StoreError)
        -> (count: Int, oldest: Date?)
    /// Forgets the failed log-ins against a subject.
    func clearLoginFailures(_ scope: LoginFailureScope, subject: String) async throws(StoreError)
}

extension AccountStore {
    /// Removes an account of any household and its log-ins; a household's last owner stays.
    public func removeUser(named name: String) async throws(StoreError) {
        try await removeUser(named: name, inHousehold: nil)
    }

    /// Sets the password of an account of any household and ends its log-ins.
    public func setPassword(user name: String, passwordHash: String, now: Date) async throws(StoreError) {
        try await setPassword(user: name, inHousehold: nil, passwordHash: passwordHash, now: now)
    }

    /// Adds an account to household 1 (`Home`); the first account is always an owner.
    @discardableResult
    public func addUser(name: String, role: UserRole, passwordHash: String, now: Date) async throws(StoreError) -> UserAccount {
        try await addUser(name: name, role: role, passwordHash: passwordHash, householdId: 1, now: now)
    }
}

/// A group of accounts that shares one collection: plants, photos, care log, identifications and settings.
public struct Household: Sendable, Hashable, Codable {
    /// Row id (1 is `Home`, the household every collection had before there were several).
    public var id: Int64
    /// Its name, unique in any letter case.
    public var name: String
    /// When it was made.
    public var createdAt: Date

    /// Describes a household.
    public init(id: Int64, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    /// Whether a household name is acceptable: 1–80 characters once trimmed, no control characters.
    public static func isValidName(_ name: String) -> Bool {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        return trimmed == name && (1...80).contains(name.count) && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
