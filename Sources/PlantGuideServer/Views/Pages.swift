import Foundation
import PlantGuideCore
import PlantLocalization

/// Every page of the app, as functions from data to HTML. Grouped by tab in `Pages+<Tab>.swift`.
enum Pages {
    /// An error page: its words in the request's language; the message itself (the error's own description) in English
    /// until errors are keyed, and marked so.
    static func error(status: Int, message: String, retry: String?, context: AppRequestContext) -> HTML {
        let words = context.localizer
        let retryLink: HTML = retry.map { "<p><a class=\"button\" href=\"\($0)\">\(words.text("error.retry"))</a></p>" } ?? ""
        return Layout.page(
            title: words.text("error.title", ["status": String(status)]), tab: nil, context: context,
            body: """
                <h1>\(words.text("error.heading"))</h1>
                <div class="notice error" role="alert"><p\(Layout.english(words))>\(message)</p>\
                <p class="meta">\(words.text("error.status", ["status": String(status)]))</p></div>
                \(retryLink)
                <p><a href="/">\(words.text("error.back"))</a></p>
                """,
            bodyLanguage: words.language
        )
    }

    /// What the log-in form asks for.
    enum LoginAccounts {
        /// The single password of a server without accounts (servers built without a database).
        case singlePassword
        /// One account: its name may be left empty.
        case one
        /// Several accounts: the name is needed.
        case several
    }

    static func login(context: AppRequestContext, next: String, message: String?, accounts: LoginAccounts = .singlePassword) -> HTML {
        let words = context.localizer
        let alert: HTML = message.map { "<div class=\"notice error\" role=\"alert\"\(Layout.english(words))>\($0)</div>" } ?? ""
        let nameField: HTML
        switch accounts {
        case .singlePassword:
            nameField = ""
        case .one:
            nameField = """
                <label for="user">\(words.text("login.userName"))</label>
                <input id="user" name="user" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="64" aria-describedby="user-hint">
                <p class="hint" id="user-hint">\(words.text("login.oneAccountHint"))</p>
                """
        case .several:
            nameField = """
                <label for="user">\(words.text("login.userName"))</label>
                <input id="user" name="user" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="64" required autofocus>
                """
        }
        let passwordFocus: HTML = accounts == .several ? "" : " autofocus"
        let intro = words.text(accounts == .singlePassword ? "login.introPassword" : "login.introAccount")
        return Layout.page(
            title: words.text("login.title"), tab: nil, context: context,
            body: """
                <h1>\(words.text("login.title"))</h1>
                <p>\(intro)</p>
                \(alert)
                <form method="post" action="/login" class="card">
                \(Layout.csrfField(context))
                <input type="hidden" name="next" value="\(next)">
                \(nameField)
                <label for="password">\(words.text("login.password"))</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required\(passwordFocus)>
                <p><button type="submit">\(words.text("login.submit"))</button></p>
                </form>
                """,
            bodyLanguage: words.language
        )
    }

    struct HomeFacts {
        var catalogEntries: Int?
        var identification: String?
        var collection: Bool
        var care: Bool
        var settings: Bool
        var dataDirectory: String?
    }

    static func home(_ facts: HomeFacts, context: AppRequestContext) -> HTML {
        let words = context.localizer
        func row(_ key: String, _ works: Bool, _ detail: HTML) -> HTML {
            let state: HTML =
                works
                ? "<span class=\"badge db\">\(words.text("home.works"))</span>"
                : "<span class=\"badge source\">\(words.text("home.notYet"))</span>"
            return "<tr><th scope=\"row\">\(words.text(key))</th><td>\(state)</td><td>\(detail)</td></tr>"
        }
        func installed(_ works: Bool, _ key: String) -> HTML { "\(words.text(works ? key : "home.notInstalled"))" }
        let home = facts.dataDirectory ?? "$PLANTGUIDE_HOME"
        let catalog: HTML = "\(facts.catalogEntries.map { words.text("home.catalog", count: $0) } ?? words.text("home.catalogMissing"))"
        // The identification's summary is written by code not keyed yet.
        let identify: HTML = facts.identification.map { Layout.inEnglish($0, words) } ?? "\(words.text("home.needsSetup"))"
        let setupNeeded = facts.identification == nil
        let settingsLink: HTML = "<a href=\"/settings\">\(words.text("nav.settings"))</a>"
        let setup: HTML = """
            <section class="card" aria-labelledby="setup">
            <h2 id="setup">\(words.text("home.setup.heading"))</h2>
            <p>\(words.text("home.setup.intro"))</p>
            <ol>
            <li><strong>\(words.text("home.setup.key"))</strong> \
            \(Layout.text(words, "home.setup.keyHow", markup: ["settings": settingsLink, "variable": "<code>PLANTNET_API_KEY</code>"]))</li>
            <li><strong>\(words.text("home.setup.model"))</strong> \
            \(Layout.text(words, "home.setup.modelHow", markup: [
                "folder": "<code>\(home)/models/</code>", "help": "<code>plantguide --help</code>",
            ]))</li>
            </ol>
            </section>
            """
        return Layout.page(
            title: words.text("home.title"), tab: .home, context: context,
            body: """
                <h1>\(words.text("home.welcome"))</h1>
                <p>\(words.text("home.intro"))</p>
                <p class="row"><a class="button" href="/identify">\(words.text("home.identify"))</a>
                <a class="button secondary" href="/browse">\(words.text("home.browse"))</a></p>
                <h2>\(words.text("home.whatWorks"))</h2>
                <table>
                <thead><tr><th scope="col">\(words.text("home.feature"))</th><th scope="col">\(words.text("home.state"))</th>\
                <th scope="col">\(words.text("home.details"))</th></tr></thead>
                <tbody>
                \(row("home.row.browse", facts.catalogEntries != nil, catalog))
                \(row("home.row.identify", !setupNeeded, identify))
                \(row("home.row.collection", facts.collection, installed(facts.collection, "home.collectionOn")))
                \(row("home.row.care", facts.care, installed(facts.care, "home.careOn")))
                \(row("nav.settings", facts.settings, installed(facts.settings, "home.settingsOn")))
                </tbody>
                </table>
                \(setup, if: setupNeeded)
                """,
            bodyLanguage: words.language
        )
    }
}
