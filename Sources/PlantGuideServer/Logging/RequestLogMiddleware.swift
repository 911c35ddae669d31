import Foundation
import PlantGuideCore
import Hummingbird
import Logging

/// Logs one line per request: method, path (never the query, which may hold search text), status and
/// duration. Bodies, cookies and headers are never logged, so passwords, keys and sessions stay out.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.inMilliseconds
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "ms": "\(String(format: "%.1f", milliseconds))",
            ]
        )
        return response
    }
}
