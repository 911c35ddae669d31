import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PlantForms
import PlantGuideCore
import PlantStore

/// Guards every request: gives the client a session cookie, requires a log-in when the server is
/// exposed, refuses state-changing requests without the session's anti-forgery token, bounds the URL
/// and body sizes, and admits identification uploads through the queue before their bodies are read.
///
/// Everything that can be refused from the headers alone is refused before the body is read, so a
/// request that cannot pass costs no parsing.
struct RequestGate: RouterMiddleware {
    typealias Context = AppRequestContext

    static let cookieName = "pg_session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let csrfField = "_csrf"
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// How long a request body may take to arrive in full before the request is refused with 408.
    static let bodyTimeout: Duration = .seconds(60)

    let sessions: SessionStore
    /// The accounts, when the server has them: a log-in is then read from the database on each request.
    let accounts: AccountDirectory?
    let configuration: ServerConfiguration
    let identifyQueue: IdentifyQueue
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.description.utf8.count <= InputLimits.urlBytes else {
            throw ServerError.uriTooLong(limit: InputLimits.urlBytes)
        }
        var context = context
        var issuedSession: String?
        if let cookie = request.cookies[Self.cookieName]?.value, sessions.isWellFormed(cookie) {
            context.sessionID = cookie
        } else {
            context.sessionID = sessions.newSessionID()
            issuedSession = context.sessionID
        }
        context.csrfToken = sessions.csrfToken(for: context.sessionID)
        // Only a proxy we trust may say the browser used HTTPS, or who the client is; anyone else could claim it.
        if configuration.trustedProxies.contains(context.peerAddress) {
            context.isHTTPS = request.headers[Self.forwardedProto]?.lowercased() == "https"
            // The proxy appends the address it saw last; earlier entries are whatever the client sent.
            if let forwarded = request.headers[Self.forwardedFor]?.split(separator: ",").last?
                .trimmingCharacters(in: .whitespaces), !forwarded.isEmpty, forwarded.count <= 64 {
                context.clientAddress = forwarded
            }
        }
        // Accounts added while the server runs turn the log-in on (checked at most once a second).
        var accountsExist = false
        if let accounts, !configuration.requiresLogin { accountsExist = await accounts.accountsExist(now: now()) }
        context.requiresLogin = configuration.requiresLogin || accountsExist
        if !context.requiresLogin {
            context.isLoggedIn = true
        } else if let accounts {
            // Read per request (one indexed read; written at most once a minute), so a changed password or a
            // removed account ends the log-in at once on every server. A fresh id cannot be logged in.
            if issuedSession == nil {
                do {
                    context.user = try await accounts.principal(sessionID: context.sessionID, now: now())
                } catch {
                    context.logger.error("log-in not checked", metadata: ["error": "\(error)"])
                }
            }
            context.isLoggedIn = context.user != nil
        } else {
            context.isLoggedIn = sessions.isLoggedIn(context.sessionID)
        }

        let path = request.uri.path
        if !context.isLoggedIn, !Self.isPublic(path) {
            if Self.wantsJSON(path) || request.method != .get {
                throw ServerError.unauthenticated
            }
            let target = request.uri.description
            var response = Response.redirect(to: "/login?next=\(urlComponent(target))", type: .found)
            if let issuedSession { response.setCookie(sessionCookie(issuedSession, secure: context.isHTTPS)) }
            return response
        }

        if request.method != .get, request.method != .head {
            if Self.isInstallationOwnerOnly(path) { try Self.requireInstallationOwner(context) }
            if Self.isOwnerOnly(path) { try Self.requireOwner(context) }
        }
        // Everything the request reads or writes in the collection is its household's: the logged-in account's, or
        // household 1 on a server without accounts. A request without a log-in (the public pages) has no household,
        // and the store refuses collection operations outside one.
        guard let scope = Self.householdScope(context) else {
            return try await respond(request, context: context, issuedSession: issuedSession, next: next)
        }
        return try await HouseholdScope.$current.withValue(scope) {
            try await respond(request, context: context, issuedSession: issuedSession, next: next)
        }
    }

    /// The household a request acts for: its account's when logged in, household 1 when the server has no accounts
    /// (then everyone on the machine is the one household), none otherwise.
    static func householdScope(_ context: AppRequestContext) -> HouseholdScope? {
        if let user = context.user {
            return HouseholdScope(household: user.householdId, user: user.userId, userName: user.name)
        }
        return context.requiresLogin ? nil : .home
    }

    private func respond(
        _ request: Request, context: Context, issuedSession: String?, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        var response: Response
        if request.method == .post || request.method == .put || request.method == .delete || request.method == .patch {
            // A method an API address does not answer is 405 (with `Allow`, from the error middleware) before any
            // anti-forgery check: there is nothing to forge.
            if let methods = OpenAPIDocument.methods(atPath: path), !methods.contains(request.method.rawValue) {
                throw HTTPError(.notFound)
            }
            // Photo uploads wait for room in the identify queue: its bound keeps their bodies and decoding in check.
            if Self.isSignedAction(path) {
                response = try await next(request, context)
            } else if Self.isIdentifyUpload(path) || Self.isPhotoUpload(path) {
                response = try await identifyQueue.admit {
                    try await checkedUnsafe(request, context: context, hasSession: issuedSession == nil, next: next)
                }
            } else {
                response = try await checkedUnsafe(request, context: context, hasSession: issuedSession == nil, next: next)
            }
        } else {
            response = try await next(request, context)
        }
        if let issuedSession { response.setCookie(sessionCookie(issuedSession, secure: context.isHTTPS)) }
        return response
    }

    /// Checks the anti-forgery token of a state-changing request: from the header, or else from the form,
    /// which is then read (bounded) and parsed once for the route.
    /// - Parameter hasSession: whether the request came with a session cookie; without one, it cannot
    ///   know its new session's token, so it is refused before its body is read.
    private func checkedUnsafe(
        _ request: Request, context: Context, hasSession: Bool, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        var context = context
        // Only uploads carry files; every other form or JSON body fits in a small one.
        let isUpload = Self.isIdentifyUpload(request.uri.path) || Self.isPhotoUpload(request.uri.path)
        let limit = isUpload ? configuration.maxUploadBytes : InputLimits.formBodyBytes
        // A checkpoint streams to disk in its route, with the token in a header: its body is never read here.
        let anyBodyLimit = Self.isModelUpload(request.uri.path)
            ? ModelRoutes.uploadLimit : isUpload ? limit : max(limit, InputLimits.jsonBodyBytes)
        if let length = request.headers[.contentLength].flatMap(Int.init), length > anyBodyLimit {
            throw ServerError.payloadTooLarge(limit: anyBodyLimit)
        }
        if let token = request.headers[Self.csrfHeader] {
            guard sessions.verifyCSRF(token, sessionID: context.sessionID) else { throw ServerError.csrfRejected }
            return try await next(request, context)
        }
        guard hasSession, let encoding = try FormData.requestEncoding(of: request.headers[.contentType]) else {
            throw ServerError.csrfRejected
        }
        // A browser's photo upload carries its token in the form, so this may parse megabytes (off these threads).
        let body = try await request.collectBody(upTo: limit, within: Self.bodyTimeout)
        let form = try await FormData.parseOffRequestThreads(encoding, body: Data(buffer: body))
        guard let token = form[Self.csrfField], sessions.verifyCSRF(token, sessionID: context.sessionID) else {
            throw ServerError.csrfRejected
        }
        context.form = form
        return try await next(request, context)
    }

    private func sessionCookie(_ id: String, secure: Bool) -> Cookie {
        Cookie(name: Self.cookieName, value: id, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    static func isPublic(_ path: String) -> Bool {
        path == "/login" || path == "/api/session" || path.hasPrefix("/static/") || path == "/healthz"
            || path == "/manifest.webmanifest" || path == "/sw.js" || path == "/favicon.ico"
            // The calendar feed checks its own secret token: phone calendars cannot log in.
            || path.hasPrefix("/care/feed/")
            // So does a reminder's action: a notification's button acts without a log-in.
            || isSignedAction(path)
    }

    /// Whether a path is authorized by a signed token in its body rather than the session: no log-in and no
    /// anti-forgery token (a forged request would need the token, which is what the check guards).
    static func isSignedAction(_ path: String) -> Bool {
        normalized(path) == "/reminders/act"
    }

    /// Whether a path is an owner's to change (the calendar address, sending the re-check queue). The router ignores
    /// empty path parts (`//settings/recheck/` reaches `/settings/recheck`), so they are ignored here too; the routes
    /// check again themselves.
    static func isOwnerOnly(_ path: String) -> Bool {
        ownerOnlyPaths.contains(normalized(path))
    }

    /// Whether a path changes what every household shares (the Pl@ntNet key, the identification settings).
    static func isInstallationOwnerOnly(_ path: String) -> Bool {
        installationOwnerOnlyPaths.contains(normalized(path))
    }

    private static func normalized(_ path: String) -> String {
        "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    private static let ownerOnlyPaths: Set<String> = ["/settings/calendar-feed", "/settings/recheck"]
    private static let installationOwnerOnlyPaths: Set<String> = [
        "/settings/api-key", "/api/settings/api-key", "/settings/identification", "/settings/model/install",
        "/settings/model/cancel", "/settings/model/remove", "/settings/model/upload",
    ]

    /// Refuses a member (403): the calendar address and sending the re-check queue are an owner's. Anyone may when
    /// the server has no accounts.
    static func requireOwner(_ context: AppRequestContext) throws {
        guard let user = context.user, user.role == .member else { return }
        throw ServerError.forbidden(
            "Only an owner of your household can change the calendar address or send the re-check queue; you are logged "
                + "in as \(user.name), a member."
        )
    }

    /// Refuses anyone but an owner of household 1, the installation's own (403): the Pl@ntNet key (its quota is the
    /// installation's) and the identification settings serve every household. Anyone may when the server has no
    /// accounts.
    static func requireInstallationOwner(_ context: AppRequestContext) throws {
        guard let user = context.user else { return }
        guard user.role == .owner, user.householdId == HouseholdScope.home.household else {
            throw ServerError.forbidden(
                "Only an owner of the household that runs this PlantGuide can change the Pl@ntNet key, the "
                    + "identification settings and the on-device models, which every household shares; you are logged in as "
                    + "\(user.name)."
            )
        }
    }

    static func wantsJSON(_ path: String) -> Bool {
        path.hasPrefix("/api/") || path == "/openapi.json"
    }

    /// `/settings/model/upload`: a checkpoint from the browser, streamed to disk by its route.
    static func isModelUpload(_ path: String) -> Bool {
        normalized(path) == "/settings/model/upload"
    }

    static func isIdentifyUpload(_ path: String) -> Bool {
        path == "/identify" || path == "/api/identify"
    }

    /// `/collection/{id}/photos`: more photos of a plant of the collection.
    static func isPhotoUpload(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return segments.count == 4 && segments[1] == "collection" && !segments[2].isEmpty && segments[3] == "photos"
    }
}

extension Request {
    /// Reads the whole body: refused with 413 when it is (or says it is) larger than `limit`, and with 408 when it
    /// has not arrived in full within `timeout` (a client that sends a body slowly would otherwise hold its handler
    /// and its memory for as long as it likes).
    mutating func collectBody(upTo limit: Int, within timeout: Duration) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw ServerError.payloadTooLarge(limit: limit)
        }
        let body = self.body
        let collected = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    return try await body.collect(upTo: limit)
                } catch is NIOTooManyBytesError {
                    throw ServerError.payloadTooLarge(limit: limit)
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw ServerError.requestTimeout(seconds: Int(timeout.components.seconds))
            }
            return buffer
        }
        self.body = .init(buffer: collected)
        return collected
    }

    /// The JSON body decoded, read up to ``PlantGuideCore/InputLimits/jsonBodyBytes``.
    func decodeJSON<Value: Decodable>(as type: Value.Type, context: AppRequestContext) async throws -> Value {
        var request = self
        _ = try await request.collectBody(upTo: InputLimits.jsonBodyBytes, within: RequestGate.bodyTimeout)
        return try await request.decode(as: type, context: context)
    }

    /// The parsed form: from middleware when it already read the body, else read now (bounded).
    func formData(context: AppRequestContext, limit: Int) async throws -> FormData {
        if let form = context.form { return form }
        var request = self
        let body = try await request.collectBody(upTo: limit, within: RequestGate.bodyTimeout)
        guard let encoding = try FormData.requestEncoding(of: headers[.contentType]) else {
            throw ServerError.badRequest("Send the form as multipart/form-data or application/x-www-form-urlencoded.")
        }
        return try await FormData.parseOffRequestThreads(encoding, body: Data(buffer: body))
    }
}
