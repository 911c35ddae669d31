import Foundation

/// Accounts, log-in sessions and failed log-ins, as the web app's log-in reads them on every request. Async, as
/// ``CollectionStore`` is, so a database server can keep them for every replica. ``CollectionDatabase`` conforms with
/// its synchronous methods.
public protocol AccountStore: Sendable {
    /// Every account, by name.
    func users() async throws(StoreError) -> [UserAccount]
    /// The account with this name (any letter case), or `nil`.
    func user(named name: String) async throws(StoreError) -> UserAccount?
    /// How many accounts there are.
    func userCount() async throws(StoreError) -> Int
    /// Adds an account; the first is always an owner.
    @discardableResult
    func addUser(name: String, role: UserRole, passwordHash: String, now: Date) async throws(StoreError) -> UserAccount
    /// Removes an account and its log-ins; the last owner stays.
    func removeUser(named name: String) async throws(StoreError)
    /// Sets an account's password and ends its log-ins.
    func setPassword(user name: String, passwordHash: String, now: Date) async throws(StoreError)
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

extension CollectionDatabase: AccountStore {}
