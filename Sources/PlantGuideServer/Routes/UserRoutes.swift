import Foundation
import Hummingbird
import PlantGuideCore
import PlantStore

/// Settings → Users: owners list the accounts, add members or owners, remove accounts and reset passwords. The same
/// rules as `plantguide user`: the last owner stays, passwords have 8 characters or more, and a new password or a
/// removal ends the account's log-ins everywhere.
struct UserRoutes {
    let accounts: AccountDirectory?
    let now: @Sendable () -> Date

    func register(on router: Router<AppRequestContext>) {
        router.get("/settings/users") { request, context in
            let accounts = try owner(context)
            let users = try await accounts.store.users()
            return Response.html(Pages.users(users, message: request.queryValue("done"), context: context))
        }
        router.post("/settings/users") { request, context in
            let accounts = try owner(context)
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
            let done: String
            do {
                switch form["action"] {
                case "add":
                    let role = UserRole(rawValue: form["role"] ?? "member") ?? .member
                    let hash = try await Self.hash(form["password"])
                    let account = try await accounts.store.addUser(name: name, role: role, passwordHash: hash, now: now())
                    done = "Added \(account.name) as \(account.role.rawValue)."
                case "remove":
                    try await accounts.store.removeUser(named: name)
                    done = "Removed \(name); its log-ins have ended."
                case "passwd":
                    let hash = try await Self.hash(form["password"])
                    try await accounts.store.setPassword(user: name, passwordHash: hash, now: now())
                    done = "The password of \(name) was changed; its log-ins have ended."
                default:
                    throw ServerError.badRequest("Say whether to add or remove an account, or to set its password.")
                }
            } catch let error as StoreError {
                switch error {
                case .userNotFound: throw ServerError.notFound("The account '\(name)'")
                case .userExists, .lastOwner, .invalid: throw ServerError.unprocessable(error.description)
                default: throw error
                }
            }
            return Response.redirect(to: "/settings/users?done=\(urlComponent(done))", type: .normal)
        }
    }

    /// The accounts, when the session is an owner's; 403 for a member, and a clear answer without accounts.
    private func owner(_ context: AppRequestContext) throws -> AccountDirectory {
        guard let accounts, let user = context.user else {
            throw ServerError.capabilityMissing(
                "Accounts are managed here once one exists and you are logged in as an owner: add the first with "
                    + "`echo 'a long passphrase' | plantguide user add NAME`, restart the server and log in."
            )
        }
        guard user.role == .owner else {
            throw ServerError.forbidden("Only an owner of this PlantGuide can manage the accounts; you are logged in as \(user.name), a member.")
        }
        return accounts
    }

    /// The PBKDF2 hash of a new password (8 characters or more), computed on the work pool.
    private static func hash(_ password: String?) async throws -> String {
        guard let password, password.count >= 8 else {
            throw ServerError.unprocessable("Use a password of at least 8 characters.")
        }
        return try await WorkPool.shared.run { PasswordHash(password: password).encoded }
    }
}
