import HTTPTypes
import Hummingbird

/// Adds the security headers to every answer: a strict Content-Security-Policy (same-origin scripts,
/// styles and images only; no framing), `nosniff`, and no referrer to other sites.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "same-origin"
        response.headers[.crossOriginOpenerPolicy] = "same-origin"
        response.headers[.permissionsPolicy] = "camera=(self), geolocation=(), microphone=()"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let crossOriginOpenerPolicy = Self("Cross-Origin-Opener-Policy")!
    static let permissionsPolicy = Self("Permissions-Policy")!
}
