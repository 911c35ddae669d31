import Foundation
import PlantGuideCore
import Hummingbird
import Logging

/// Logs one line per request: method, path (never the query, which may hold search text), status and
/// duration. Bodies, cookies and headers are never logged, so passwords, keys and sessions stay out.
///
/// Successful reads of the catalog and of static files are logged at debug level: they are most of the
/// requests, change nothing, and writing their lines cost more than answering them. Everything else (every
/// change, every identification, every error and refusal) is logged at info.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let level: Logger.Level = Self.isRoutineRead(request, status: response.status) ? .debug : .info
        context.logger.log(
            level: level,
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "ms": "\(Self.tenths(elapsed))",
            ]
        )
        return response
    }

    /// A successful GET or HEAD of the catalog (`/browse`, `/plants/…`, `/api/catalog/…`) or a static file.
    static func isRoutineRead(_ request: Request, status: HTTPResponse.Status) -> Bool {
        guard request.method == .get || request.method == .head, status.code < 400 else { return false }
        let path = request.uri.path
        return path.hasPrefix("/static/") || path == "/browse" || path.hasPrefix("/plants/") || path.hasPrefix("/api/catalog/")
            || path == "/api/catalog"
    }

    /// Milliseconds to one decimal, e.g. `0.4` or `12.0` (as `String(format: "%.1f")` wrote them, without its cost).
    static func tenths(_ duration: Duration) -> String {
        let tenths = Int64((duration.inMilliseconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
