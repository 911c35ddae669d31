import Hummingbird
import NIOCore
import Synchronization

/// Routes for `scripts/load-check` only: a bare Hummingbird route, without the app's middleware (logging,
/// security headers, errors, sessions), that answers a constant JSON body. The load check measures the app's
/// routes against it in the same server and run, so the figures say what the app costs on top of Hummingbird
/// on this machine. Served only when ``ServerConfiguration/benchmarkRoutes`` is on.
enum BenchmarkRoutes {
    /// Where the benchmark routes live.
    static let prefix = "/__benchmark/"
    /// `GET /__benchmark/json?bytes=N`: a constant JSON object of exactly N bytes (64 to 1 MiB; 1,024 without `bytes`).
    static let jsonPath = "/__benchmark/json"
    static let bytesRange = 64...1_048_576

    /// Bodies made so far, by size: each size is built once, then every answer shares its bytes.
    private static let bodies = Mutex<[Int: ByteBuffer]>([:])

    /// The router of the bare route: no middleware at all.
    static func router() -> Router<AppRequestContext> {
        let router = Router(context: AppRequestContext.self)
        router.get(RouterPath(jsonPath)) { request, _ -> Response in
            let size = request.uri.queryParameters.get("bytes").flatMap { Int($0) } ?? 1024
            guard bytesRange.contains(size) else {
                return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: "bytes must be from 64 to 1048576\n")))
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body(size: size))
            )
        }
        return router
    }

    /// `{"padding":"xxx…"}` of exactly `size` bytes.
    static func body(size: Int) -> ByteBuffer {
        bodies.withLock { bodies in
            if let known = bodies[size] { return known }
            let made = ByteBuffer(string: #"{"padding":""# + String(repeating: "x", count: size - 14) + #""}"#)
            if bodies.count < 16 { bodies[size] = made }
            return made
        }
    }

    /// Sends requests under ``prefix`` to the bare router when it is on, everything else to the app.
    struct Responder<App: HTTPResponder, Bare: HTTPResponder>: HTTPResponder
    where App.Context == AppRequestContext, Bare.Context == AppRequestContext {
        let app: App
        let bare: Bare?

        func respond(to request: Request, context: AppRequestContext) async throws -> Response {
            if let bare, request.uri.path.hasPrefix(BenchmarkRoutes.prefix) {
                return try await bare.respond(to: request, context: context)
            }
            return try await app.respond(to: request, context: context)
        }
    }
}
