import Foundation
import Hummingbird

/// The start page, health and status, static assets and the OpenAPI document.
struct GeneralRoutes {
    let dependencies: ServerDependencies
    let configuration: ServerConfiguration
    let queue: IdentifyQueue

    func register(on router: Router<AppRequestContext>) {
        router.get("/") { _, context in
            let facts = Pages.HomeFacts(
                catalogEntries: try? dependencies.catalog?.statistics().entries,
                identification: dependencies.identification?.summary,
                collection: dependencies.collection != nil, care: dependencies.care != nil,
                settings: dependencies.settings != nil, dataDirectory: configuration.dataDirectory?.path
            )
            return Response.html(Pages.home(facts, context: context))
        }
        router.get("/healthz") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
        router.get("/api/status") { _, context in
            let load = queue.load
            return JSONResponse.make(
                StatusBody(
                    catalog: dependencies.catalog != nil, identification: dependencies.identification?.summary,
                    strategies: dependencies.identification?.strategies.map(\.rawValue) ?? [],
                    collection: dependencies.collection != nil, care: dependencies.care != nil,
                    settings: dependencies.settings != nil, requiresLogin: context.requiresLogin,
                    maxUploadBytes: configuration.maxUploadBytes,
                    queue: .init(running: load.running, admitted: load.admitted, concurrency: queue.maximumConcurrent, queueLength: queue.maximumQueued)
                )
            )
        }
        router.get("/openapi.json") { _, context in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json(requiresLogin: context.requiresLogin)))
            )
        }
        router.get("/static/app.css") { _, _ in Self.asset(StaticAssets.stylesheet, type: "text/css; charset=utf-8") }
        router.get("/static/app.js") { _, _ in Self.asset(StaticAssets.script, type: "text/javascript; charset=utf-8") }
        // Installable: the manifest, its icons, and the service worker (served from the root, so it covers every page).
        router.get("/manifest.webmanifest") { _, _ in
            Self.asset(InstallableApp.manifest, type: "application/manifest+json; charset=utf-8")
        }
        router.get("/sw.js") { _, _ in
            var response = Self.asset(InstallableApp.serviceWorker, type: "text/javascript; charset=utf-8")
            // Browsers check for a new service worker on each visit; never serve a stale one from a cache.
            response.headers[.cacheControl] = "no-cache"
            return response
        }
        for (path, icon) in [
            ("/static/icon-192.png", AppIcons.icon192), ("/static/icon-512.png", AppIcons.icon512),
            ("/static/icon-maskable-512.png", AppIcons.maskable512), ("/static/apple-touch-icon.png", AppIcons.appleTouch),
            ("/favicon.ico", AppIcons.favicon),
        ] {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "image/png", .cacheControl: "public, max-age=604800"],
                    body: .init(byteBuffer: ByteBuffer(bytes: icon))
                )
            }
        }
    }

    private static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}

/// `GET /api/status`: what this server can do and how busy it is.
struct StatusBody: Codable, Sendable {
    struct Queue: Codable, Sendable {
        var running: Int
        var admitted: Int
        var concurrency: Int
        var queueLength: Int
    }

    var catalog: Bool
    var identification: String?
    var strategies: [String]
    var collection: Bool
    var care: Bool
    var settings: Bool
    var requiresLogin: Bool
    var maxUploadBytes: Int
    var queue: Queue
}
