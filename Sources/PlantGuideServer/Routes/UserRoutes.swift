import Foundation
import Hummingbird
import PlantGuideCore
import PlantGuideLive
import PlantStore

/// Settings → Users: owners list their household's accounts, add members or owners to it, remove accounts and reset
/// passwords. The same rules as `plantguide user`: a household's last owner stays, passwords have 8 characters or more,
/// and a new password or a removal ends the account's log-ins everywhere. Another household's accounts are not found.
struct UserRoutes {
    let accounts: AccountDirectory?
    let now: @Sendable () -> Date

    func register(on router: Router<AppRequestContext>) {
        router.get("/settings/users") { request, context in
            let (accounts, household) = try owner(context)
            let users = try await accounts.store.users(household: household)
            return Response.html(Pages.users(users, message: request.queryValue("done"), context: context))
        }
        router.post("/settings/users") { request, context in
            let (accounts, household) = try owner(context)
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
            let done: String
            switch form["action"] {
            case "add":
                let account = try await add(
                    name: name, role: form["role"] ?? "member", password: form["password"], to: accounts, household: household
                )
                done = "Added \(account.name) as \(account.role.rawValue)."
            case "remove":
                try await remove(name, from: accounts, household: household)
                done = "Removed \(name); its log-ins have ended."
            case "passwd":
                try await setPassword(of: name, to: form["password"], in: accounts, household: household)
                done = "The password of \(name) was changed; its log-ins have ended."
            default:
                throw ServerError.badRequest("Say whether to add or remove an account, or to set its password.")
            }
            return Response.redirect(to: "/settings/users?done=\(urlComponent(done))", type: .normal)
        }

        // Settings → Language and units: any logged-in member, for their own account.
        router.post("/settings/me") { request, context in
            guard let accounts, let user = context.user else { throw ServerError.notFound("Your account's settings") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let preferences = try Self.preferences(
                language: form["language"], temperatureUnit: form["temperatureUnit"], keeping: user.preferences
            )
            try await accounts.store.setPreferences(preferences, user: user.name, inHousehold: user.householdId)
            return Response.redirect(to: "/settings?me=1#me", type: .normal)
        }

        // The same, as JSON: owners only, as the page.
        router.get("/api/users") { _, context in
            // Without accounts (the gate let a session without a log-in through) there is nothing to list.
            if accounts != nil, context.user == nil { return JSONResponse.make(UserList(users: [])) }
            let (accounts, household) = try owner(context)
            return JSONResponse.make(UserList(users: try await accounts.store.users(household: household).map { UserSummary($0) }))
        }
        router.post("/api/users") { request, context in
            if accounts != nil, context.user == nil {
                throw ServerError.forbidden(
                    "The first account, an owner, is made on the server's machine: "
                        + "`echo 'a long passphrase' | plantguide user add NAME`; then log in as it to add more."
                )
            }
            let (accounts, household) = try owner(context)
            let body = try await request.decodeJSON(as: NewUserBody.self, context: context)
            let account = try await add(
                name: body.name, role: body.role ?? "member", password: body.password, to: accounts, household: household
            )
            return JSONResponse.make(UserSummary(account), status: .created)
        }
        router.delete("/api/users/:name") { _, context in
            if accounts != nil, context.user == nil { throw ServerError.notFound("The account '\(try context.parameters.require("name"))'") }
            let (accounts, household) = try owner(context)
            try await remove(try context.parameters.require("name"), from: accounts, household: household)
            return Response(status: .noContent)
        }
        router.put("/api/users/:name/password") { request, context in
            if accounts != nil, context.user == nil { throw ServerError.notFound("The account '\(try context.parameters.require("name"))'") }
            let (accounts, household) = try owner(context)
            let body = try await request.decodeJSON(as: NewPasswordBody.self, context: context)
            try await setPassword(of: try context.parameters.require("name"), to: body.password, in: accounts, household: household)
            return Response(status: .noContent)
        }
    }

    /// Adds an account to the owner's household (the role `owner` or `member`; anything else is refused).
    private func add(
        name: String, role: String, password: String?, to accounts: AccountDirectory, household: Int64
    ) async throws -> UserAccount {
        guard let role = UserRole(rawValue: role) else {
            throw ServerError.unprocessable("The role '\(role)' is neither owner nor member.")
        }
        let name = name.trimmingCharacters(in: .whitespaces)
        guard UserAccount.isValidName(name) else { throw ServerError.unprocessable(UserAccount.invalidName(name).description) }
        let hash = try await Self.hash(password)
        return try await mapped(name) {
            try await accounts.store.addUser(name: name, role: role, passwordHash: hash, householdId: household, now: now())
        }
    }

    /// Removes an account of the household; its log-ins end. The household's last owner stays. Another household's
    /// account is not found, as an unknown one: the store checks the household in the transaction that removes it.
    private func remove(_ name: String, from accounts: AccountDirectory, household: Int64) async throws {
        try await mapped(name) { try await accounts.store.removeUser(named: name, inHousehold: household) }
    }

    /// Sets the password of an account of the household; its log-ins end. An unknown name, or another household's, is
    /// refused before the password is hashed, and the store checks the household again in the transaction that sets it.
    private func setPassword(of name: String, to password: String?, in accounts: AccountDirectory, household: Int64) async throws {
        try await requireMember(name, of: household, in: accounts)
        let hash = try await Self.hash(password)
        try await mapped(name) {
            try await accounts.store.setPassword(user: name, inHousehold: household, passwordHash: hash, now: now())
        }
    }

    /// Runs an account change, turning the store's refusals into the answers the page and the API give.
    private func mapped<T>(_ name: String, _ change: () async throws -> T) async throws -> T {
        do {
            return try await change()
        } catch let error as StoreError {
            switch error {
            case .userNotFound: throw ServerError.notFound("The account '\(name)'")
            // The last owner is a fine request against the household's state (someone must own it): a conflict.
            case .userExists, .lastOwner: throw ServerError.conflict(error.description)
            case .invalid: throw ServerError.unprocessable(error.description)
            default: throw error
            }
        }
    }

    /// 404 unless `name` is an account of `household`: another household's accounts are not found, as unknown ones.
    private func requireMember(_ name: String, of household: Int64, in accounts: AccountDirectory) async throws {
        guard try await accounts.store.user(named: name)?.householdId == household else {
            throw ServerError.notFound("The account '\(name)'")
        }
    }

    /// The accounts and the owner's household, when the session is an owner's; 403 for a member, and a clear answer
    /// without accounts.
    private func owner(_ context: AppRequestContext) throws -> (AccountDirectory, household: Int64) {
        guard let accounts, let user = context.user else {
            throw ServerError.capabilityMissing(
                "Accounts are managed here once one exists and you are logged in as an owner: add the first with "
                    + "`echo 'a long passphrase' | plantguide user add NAME`, restart the server and log in."
            )
        }
        guard user.role == .owner else {
            throw ServerError.forbidden("Only an owner of this PlantGuide can manage the accounts; you are logged in as \(user.name), a member.")
        }
        return (accounts, user.householdId)
    }

    /// The PBKDF2 hash of a new password (8 characters or more), computed on the work pool.
    private static func hash(_ password: String?) async throws -> String {
        guard let password, password.count >= 8 else {
            throw ServerError.unprocessable("Use a password of at least 8 characters.")
        }
        return try await WorkPool.shared.run { PasswordHash(password: password).encoded }
    }
}

/// `GET /api/users`: the accounts, never their password hashes.
struct UserList: Encodable, Sendable {
    var users: [UserSummary]
}

/// `POST /api/users`.
struct NewUserBody: Decodable, Sendable {
    var name: String
    var password: String
    var role: String?
}

/// `PUT /api/users/{name}/password`.
struct NewPasswordBody: Decodable, Sendable {
    var password: String
}

extension UserRoutes {
    /// A member's preferences from the Settings form: `auto` for automatic; a field left out keeps its value.
    static func preferences(language: String?, temperatureUnit: String?, keeping current: MemberPreferences) throws -> MemberPreferences {
        do {
            return try PreferenceChoice.updating(current, language: language, temperatureUnit: temperatureUnit)
        } catch {
            throw ServerError.badRequest(error.description)
        }
    }
}
