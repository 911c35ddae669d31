import HTTPTypes
import Hummingbird

/// Adds the security headers to every answer: a strict Content-Security-Policy (same-origin scripts,
/// styles and images only; no framing), `nosniff`, and no referrer to other sites.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String { SecurityHeaderValues.contentSecurityPolicy }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        for field in SecurityHeaderValues.fields { response.headers[field.name] = field.value }
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

/// The values ``SecurityHeadersMiddleware`` sets, built once rather than on every answer.
enum SecurityHeaderValues {
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    static let fields: [HTTPField] = [
        HTTPField(name: .contentSecurityPolicy, value: contentSecurityPolicy),
        HTTPField(name: .xContentTypeOptions, value: "nosniff"),
        HTTPField(name: .xFrameOptions, value: "DENY"),
        HTTPField(name: .referrerPolicy, value: "same-origin"),
        HTTPField(name: .crossOriginOpenerPolicy, value: "same-origin"),
        HTTPField(name: .permissionsPolicy, value: "camera=(self), geolocation=(), microphone=()"),
    ]
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let crossOriginOpenerPolicy = Self("Cross-Origin-Opener-Policy")!
    static let permissionsPolicy = Self("Permissions-Policy")!
}
