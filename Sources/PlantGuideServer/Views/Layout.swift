import Foundation
import Hummingbird
import PlantLocalization
import PlantStore

/// The tabs of the app, in the order of the navigation bar.
enum Tab: String, CaseIterable {
    case home, identify, browse, collection, care, settings

    /// The key of the tab's name in the string tables.
    var titleKey: String { "nav.\(rawValue)" }

    var path: String { self == .home ? "/" : "/\(rawValue)" }
}

/// Page chrome shared by every page.
enum Layout {
    /// A page: the chrome (navigation, banners, footer) in the request's language, and `body`, which is written in
    /// `bodyLanguage` (every page's body is English until its texts are keyed, and is then marked `lang="en"` inside a
    /// page in another language, so a screen reader reads it as English).
    static func page(
        title: String, tab: Tab?, context: AppRequestContext, body: HTML, bodyLanguage: InterfaceLanguage = .english
    ) -> HTML {
        let words = context.localizer
        let tabs: [HTML] = Tab.allCases.filter { $0 != .home }.map { item in
            let current: HTML = item == tab ? #" aria-current="page""# : ""
            return "<li><a href=\"\(item.path)\"\(current)\(english(words, unlessTranslated: item.titleKey))>\(words.text(item.titleKey))</a></li>"
        }
        let signedIn: HTML = context.user.map { (user: SessionPrincipal) -> HTML in
            "<span class=\"signed-in\"\(english(words, unlessTranslated: "layout.signedIn"))>\(words.text("layout.signedIn", ["name": user.name]))</span> "
        } ?? ""
        let logout: HTML =
            context.requiresLogin && context.isLoggedIn
            ? """
            <form method="post" action="/logout">\(signedIn)<input type="hidden" name="_csrf" value="\(context.csrfToken)">\
            <button type="submit"\(english(words, unlessTranslated: "layout.logOut"))>\(words.text("layout.logOut"))</button></form>
            """ : ""
        let navigation: HTML =
            context.isLoggedIn
            ? """
            <nav class="tabs" aria-label="\(words.text("nav.label"))"><ul>\(tabs)</ul></nav>\(logout)
            """ : ""
        let bodyLang: HTML = bodyLanguage == words.language ? "" : " lang=\"\(bodyLanguage.tag)\""
        return """
            <!doctype html>
            <html lang="\(words.language.tag)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title\(bodyLang)>\(title) · PlantGuide</title>
            <meta name="theme-color" content="\(InstallableApp.themeColor)">
            <link rel="manifest" href="/manifest.webmanifest">
            <link rel="icon" href="/favicon.ico" sizes="32x32" type="image/png">
            <link rel="apple-touch-icon" href="/static/apple-touch-icon.png">
            <link rel="stylesheet" href="/static/app.css?v=\(StaticAssets.version)">
            <script src="/static/app.js?v=\(StaticAssets.version)" defer></script>
            </head>
            <body>
            <a class="skip" href="#main"\(english(words, unlessTranslated: "layout.skip"))>\(words.text("layout.skip"))</a>
            <div class="offline-banner" role="status"\(english(words, unlessTranslated: "layout.offline"))>\(words.text("layout.offline"))</div>
            <header class="site"><div class="inner">
            <a class="brand" href="/">PlantGuide</a>
            \(navigation)
            </div></header>
            <main id="main"\(bodyLang)>
            \(body)
            </main>
            <footer class="site"\(english(words, unlessTranslated: "layout.footer"))>\(words.text("layout.footer"))</footer>
            </body>
            </html>
            """
    }

    /// ` lang="en"` for an element whose text is English on a page in another language: text not keyed yet (no `key`),
    /// or English standing in for a `key` that `words` has no translation of.
    static func english(_ words: Localizer, unlessTranslated key: String? = nil) -> HTML {
        if words.language == .english { return "" }
        if let key, words.isTranslated(key) { return "" }
        return #" lang="en""#
    }

    /// The text of `key` with some placeholders filled by trusted markup (a link, a code name): the text and the
    /// `arguments` are escaped, the `markup` is not. Each markup placeholder is filled with a private-use marker (taken
    /// out of `arguments` first), and one pass over the escaped text trades each marker for its markup.
    static func text(_ words: Localizer, _ key: String, markup: [String: HTML], _ arguments: [String: String] = [:]) -> HTML {
        let (open, close): (Character, Character) = ("\u{E000}", "\u{E001}")
        var all = arguments.mapValues { $0.filter { $0 != open && $0 != close } }
        let fragments = markup.sorted { $0.key < $1.key }
        for (index, fragment) in fragments.enumerated() { all[fragment.key] = "\(open)\(index)\(close)" }
        var rest = Substring(HTML.escape(words.text(key, all)))
        var out = ""
        while let start = rest.firstIndex(of: open), let end = rest[start...].firstIndex(of: close) {
            out += rest[..<start]
            if let index = Int(rest[rest.index(after: start)..<end]), fragments.indices.contains(index) {
                out += fragments[index].value.markup
            }
            rest = rest[rest.index(after: end)...]
        }
        return HTML(unsafeMarkup: out + rest)
    }

    /// Text that is English whatever the page's language (written by code not keyed yet), marked so on another
    /// language's page.
    static func inEnglish(_ text: String, _ words: Localizer) -> HTML {
        words.language == .english ? "\(text)" : "<span lang=\"en\">\(text)</span>"
    }

    /// A day as the page's language writes it, e.g. "29 nov. 2026"; English pages keep the server's own format
    /// (Foundation's `Locale.current`, "29 Nov 2026" on Linux).
    static func day(_ date: Date, _ words: Localizer) -> String {
        guard words.language != .english else { return date.formatted(date: .abbreviated, time: .omitted) }
        return date.formatted(Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: words.language.tag)))
    }

    /// A time of day as the server's clock shows it, e.g. "14:05".
    static func time(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// A clear "not available yet" panel for a page whose capability is missing.
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
