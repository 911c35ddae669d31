import Foundation
import Hummingbird
import PlantGuideCore
import PlantStore

/// Log-in and log-out, for the pages and for API clients. Only used when accounts (or a single password) exist.
struct AuthRoutes {
    let configuration: ServerConfiguration
    let sessions: SessionStore
    /// The accounts; without them, the configured single password is checked (and ``throttle`` counts failures).
    let accounts: AccountDirectory?
    let throttle: LoginThrottle
    let now: @Sendable () -> Date

    func register(on router: Router<AppRequestContext>) {
        router.get("/login") { request, context in
            let next = Self.safeNext(request.uri.queryParameters["next"].map(String.init))
            if !context.requiresLogin || context.isLoggedIn { return Response.redirect(to: next, type: .found) }
            return Response.html(Pages.login(context: context, next: next, message: nil, accounts: await accountsHint()))
        }
        router.post("/login") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let next = Self.safeNext(form["next"])
            do {
                return try await logIn(
                    name: form["user"] ?? "", password: form["password"] ?? "", context: context,
                    then: Response.redirect(to: next, type: .normal)
                )
            } catch let error as ServerError {
                // A wrong name or password, or a missing name, is said on the form itself, which keeps its fields.
                switch error {
                case .invalidCredentials, .userNameRequired, .badRequest:
                    let page = Pages.login(context: context, next: next, message: error.description, accounts: await accountsHint())
                    return Response.html(page, status: error.status)
                default:
                    throw error
                }
            }
        }
        router.post("/logout") { _, context in
            await logOut(context)
            var response = Response.redirect(to: "/login", type: .normal)
            response.setCookie(Cookie(name: RequestGate.cookieName, value: "", maxAge: 0, path: "/", secure: context.isHTTPS, httpOnly: true, sameSite: .lax))
            return response
        }
        router.get("/api/session") { _, context in
            JSONResponse.make(SessionBody(
                requiresLogin: context.requiresLogin, loggedIn: context.isLoggedIn, csrfToken: context.csrfToken,
                user: context.user?.name, role: context.user?.role.rawValue
            ))
        }
        router.post("/api/session") { request, context in
            let body = try await request.decodeJSON(as: PasswordBody.self, context: context)
            return try await logIn(name: body.user ?? "", password: body.password, context: context, then: Response(status: .noContent))
        }
        router.delete("/api/session") { _, context in
            await logOut(context)
            return Response(status: .noContent)
        }
    }

    /// Ends the session's log-in, in the database too.
    private func logOut(_ context: AppRequestContext) async {
        sessions.logOut(context.sessionID)
        guard let accounts else { return }
        do {
            try await accounts.store.deleteSession(idHash: SessionStore.idHash(context.sessionID))
        } catch {
            context.logger.error("log-out not stored", metadata: ["error": "\(error)"])
        }
    }

    /// What the log-in page asks for: a name, unless the server has a single password or exactly one account.
    private func accountsHint() async -> Pages.LoginAccounts {
        guard let accounts else { return .singlePassword }
        return ((try? await accounts.store.userCount()) ?? 0) == 1 ? .one : .several
    }

    /// Checks the name and password (throttled per account and per client) and starts a fresh session, so an id
    /// planted before the log-in is worthless after it.
    private func logIn(name: String, password: String, context: AppRequestContext, then response: Response) async throws -> Response {
        if let accounts {
            let current = now()
            let account = try await accounts.authenticate(
                name: name, password: password, address: context.clientAddress, now: current
            )
            await logOut(context)
            let fresh = sessions.newSessionID()
            try await accounts.store.createSession(
                idHash: SessionStore.idHash(fresh), userId: account.id, expiresAt: current.addingTimeInterval(sessions.lifetime),
                now: current
            )
            context.logger.info("log-in", metadata: ["user": "\(account.name)"])
            var response = response
            response.setCookie(Cookie(name: RequestGate.cookieName, value: fresh, path: "/", secure: context.isHTTPS, httpOnly: true, sameSite: .lax))
            return response
        }
        guard let hash = configuration.passwordHash else { return response }
        if let wait = throttle.retryAfter(client: context.clientAddress) {
            throw ServerError.tooManyLoginAttempts(retryAfter: wait)
        }
        // PBKDF2 takes a good fraction of a second of CPU on purpose: it runs on the work pool, not on the threads
        // that serve other requests.
        guard try await WorkPool.shared.run({ hash.verify(password) }) else {
            throttle.recordFailure(client: context.clientAddress)
            context.logger.notice("log-in failed", metadata: ["client": "\(context.clientAddress)"])
            throw ServerError.invalidCredentials
        }
        throttle.recordSuccess(client: context.clientAddress)
        sessions.logOut(context.sessionID)
        let fresh = sessions.newSessionID()
        sessions.logIn(fresh)
        var response = response
        response.setCookie(Cookie(name: RequestGate.cookieName, value: fresh, path: "/", secure: context.isHTTPS, httpOnly: true, sameSite: .lax))
        return response
    }

    /// Only local paths, so the log-in form cannot bounce a user to another site.
    ///
    /// Browsers drop tabs and line breaks from a `Location` and read backslashes as slashes, so
    /// `/<TAB>/evil.example` and `/\evil.example` lead off-site: the target is judged as a browser would
    /// read it, also after undoing percent-encoding (`/%2F/evil.example`), and the normalised path is
    /// what is returned. Anything that is not a path on this site, or is the log-in page itself, is `/`.
    static func safeNext(_ text: String?) -> String {
        guard let text else { return "/" }
        let path = browserReading(text)
        guard isLocalPath(path), !path.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else { return "/" }
        var decoded = path
        for _ in 0..<3 {
            guard let once = decoded.removingPercentEncoding, once != decoded else { break }
            decoded = browserReading(once)
            guard isLocalPath(decoded) else { return "/" }
        }
        return path
    }

    /// The text as a browser follows it: tabs and line breaks gone, backslashes as slashes.
    private static func browserReading(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            scalars.append(scalar == "\\" ? "/" : scalar)
        }
        return String(scalars)
    }

    private static func isLocalPath(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.hasPrefix("//") && !path.hasPrefix("/login")
    }
}

struct SessionBody: Codable, Sendable {
    var requiresLogin: Bool
    var loggedIn: Bool
    var csrfToken: String
    /// The account logged in, when the server has accounts.
    var user: String? = nil
    /// Its role (`owner` or `member`).
    var role: String? = nil
}

struct PasswordBody: Codable, Sendable {
    /// The account's name; may be left out when exactly one account exists.
    var user: String?
    var password: String
}
