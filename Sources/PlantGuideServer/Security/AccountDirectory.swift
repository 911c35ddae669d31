import Foundation
import PlantGuideLive
import PlantStore
import Synchronization

/// The accounts and log-ins of the web app, kept in the collection database, so every server process sharing it
/// sees the same log-ins, revocations and throttle counts.
///
/// A log-in is checked against the database on every request that needs it: changing a password or removing an
/// account ends its log-ins at once, everywhere. Failed log-ins are counted per account name and per client
/// address; past ``accountFailureLimit`` or ``addressFailureLimit`` within ``failureWindow`` further attempts are
/// refused with 429 until the oldest failure leaves the window. A success clears the account's failures.
public struct AccountDirectory: Sendable {
    /// Failed log-ins one account name may have within the window.
    public var accountFailureLimit = 5
    /// Failed log-ins one client address may have within the window.
    public var addressFailureLimit = 20
    /// The window failures are counted in (seconds).
    public var failureWindow: TimeInterval = 15 * 60
    /// Where accounts and log-ins are kept.
    public let store: any AccountStore
    private let existence = AccountExistence()

    /// Creates the directory over a store of accounts.
    public init(store: any AccountStore) {
        self.store = store
    }

    /// The directory over the collection's store, when there is a collection.
    public init?(collection: PlantCollection?) {
        guard let store = collection?.store else { return nil }
        self.init(store: store)
    }

    /// Whether any account exists. Once one does, it always will (the last owner stays), so `true` is kept; `false`
    /// is asked again at most once a second, so an account added by `plantguide user add` while the server runs
    /// turns the log-in on within a second, without a query per request.
    func accountsExist(now: Date) async -> Bool {
        let known = existence.state.withLock { state -> Bool? in
            if state.exist { return true }
            if let checked = state.checkedAt, abs(now.timeIntervalSince(checked)) < 1 { return false }
            state.checkedAt = now
            return nil
        }
        if let known { return known }
        let exist = ((try? await store.userCount()) ?? 0) > 0
        if exist { existence.state.withLock { $0.exist = true } }
        return exist
    }

    /// Who is logged in with this session id, or `nil`.
    func principal(sessionID: String, now: Date) async throws(StoreError) -> SessionPrincipal? {
        try await store.session(idHash: SessionStore.idHash(sessionID), now: now)
    }

    /// Checks a name and password, throttled per account and per address, and returns the account.
    /// - Parameter name: the account's name; may be empty when exactly one account exists.
    func authenticate(name: String, password: String, address: String, now: Date) async throws -> UserAccount {
        let since = now.addingTimeInterval(-failureWindow)
        try await refuseWhenThrottled(.address, subject: address, limit: addressFailureLimit, since: since, now: now)
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        var account: UserAccount?
        if trimmed.isEmpty {
            let accounts = try await store.users()
            guard accounts.count == 1 else {
                throw ServerError.userNameRequired
            }
            account = accounts[0]
        } else {
            try await refuseWhenThrottled(.account, subject: trimmed, limit: accountFailureLimit, since: since, now: now)
            account = UserAccount.isValidName(trimmed) ? try await store.user(named: trimmed) : nil
        }
        let subject = account?.name ?? trimmed
        // An unknown name costs the same PBKDF2 work as a wrong password, so timing does not tell names apart.
        let hash = account.flatMap { PasswordHash(encoded: $0.passwordHash) } ?? Self.decoy
        let matches = try await WorkPool.shared.run { hash.verify(password) }
        guard let account, matches else {
            if !subject.isEmpty { try await store.recordLoginFailure(.account, subject: subject, at: now) }
            try await store.recordLoginFailure(.address, subject: address, at: now)
            throw ServerError.invalidCredentials
        }
        try await store.clearLoginFailures(.account, subject: account.name)
        return account
    }

    private func refuseWhenThrottled(
        _ scope: LoginFailureScope, subject: String, limit: Int, since: Date, now: Date
    ) async throws {
        let failures = try await store.loginFailures(scope, subject: subject, since: since)
        guard failures.count >= limit, let oldest = failures.oldest else { return }
        let wait = max(1, Int((failureWindow - now.timeIntervalSince(oldest)).rounded(.up)))
        throw ServerError.tooManyLoginAttempts(retryAfter: wait)
    }

    /// A hash no password is known for, verified when the name is unknown (made once, on the first unknown name).
    private static let decoy = PasswordHash(password: UUID().uuidString)
}

/// Whether accounts exist, as last read (see ``AccountDirectory/accountsExist(now:)``).
private final class AccountExistence: Sendable {
    let state = Mutex<(exist: Bool, checkedAt: Date?)>((false, nil))
}
