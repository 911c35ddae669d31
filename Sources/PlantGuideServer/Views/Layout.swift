import Foundation
import Hummingbird
import PlantStore

/// The tabs of the app, in the order of the navigation bar.
enum Tab: String, CaseIterable {
    case home, identify, browse, collection, care, settings

    var title: String {
        switch self {
        case .home: "Home"
        case .identify: "Identify"
        case .browse: "Browse"
        case .collection: "Collection"
        case .care: "Care"
        case .settings: "Settings"
        }
    }

    var path: String { self == .home ? "/" : "/\(rawValue)" }
}

/// Page chrome shared by every page.
enum Layout {
    static func page(title: String, tab: Tab?, context: AppRequestContext, body: HTML) -> HTML {
        let tabs: [HTML] = Tab.allCases.filter { $0 != .home }.map { item in
            let current: HTML = item == tab ? #" aria-current="page""# : ""
            return "<li><a href=\"\(item.path)\"\(current)>\(item.title)</a></li>"
        }
        let signedIn: HTML = context.user.map { (user: SessionPrincipal) -> HTML in
            "<span class=\"signed-in\">Signed in as \(user.name)</span> "
        } ?? ""
        let logout: HTML =
            context.requiresLogin && context.isLoggedIn
            ? """
            <form method="post" action="/logout">\(signedIn)<input type="hidden" name="_csrf" value="\(context.csrfToken)">\
            <button type="submit">Log out</button></form>
            """ : ""
        let navigation: HTML =
            context.isLoggedIn
            ? "<nav class=\"tabs\" aria-label=\"Main\"><ul>\(tabs)</ul></nav>\(logout)" : ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · PlantGuide</title>
            <meta name="theme-color" content="\(InstallableApp.themeColor)">
            <link rel="manifest" href="/manifest.webmanifest">
            <link rel="icon" href="/favicon.ico" sizes="32x32" type="image/png">
            <link rel="apple-touch-icon" href="/static/apple-touch-icon.png">
            <link rel="stylesheet" href="/static/app.css?v=\(StaticAssets.version)">
            <script src="/static/app.js?v=\(StaticAssets.version)" defer></script>
            </head>
            <body>
            <a class="skip" href="#main">Skip to content</a>
            <div class="offline-banner" role="status">You are offline: only on-device identification and saved data work.</div>
            <header class="site"><div class="inner">
            <a class="brand" href="/">PlantGuide</a>
            \(navigation)
            </div></header>
            <main id="main">
            \(body)
            </main>
            <footer class="site">PlantGuide — plant data from the bundled catalog; identifications by your on-device model or Pl@ntNet.</footer>
            </body>
            </html>
            """
    }

    /// A clear "not available yet" panel for a page whose capability is missing.
    /// A time of day as the server's clock shows it, e.g. "14:05".
    static func time(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func unavailable(_ feature: String, how: HTML) -> HTML {
        """
        <section class="notice" aria-labelledby="unavailable-title">
        <h2 id="unavailable-title">\(feature) is not available yet</h2>
        \(how)
        </section>
        """
    }

    static func csrfField(_ context: AppRequestContext) -> HTML {
        "<input type=\"hidden\" name=\"_csrf\" value=\"\(context.csrfToken)\">"
    }
}

extension Response {
    /// An HTML page.
    static func html(_ page: HTML, status: HTTPResponse.Status = .ok) -> Response {
        var buffer = ByteBuffer()
        buffer.writeString(page.markup)
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: buffer))
    }
}

/// Encodes API answers with stable, readable JSON.
enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        if let writable = value as? any JSONWritable {
            var writer = JSONWriter()
            writable.write(to: &writer)
            if !writer.failed {
                return Response(
                    status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: writer.buffer)
                )
            }
        }
        let data = (try? encoder.encode(value)) ?? Data(#"{"status":500,"message":"Could not encode the answer."}"#.utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
