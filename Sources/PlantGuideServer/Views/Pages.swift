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
        func row(_ name: String, _ works: Bool, _ detail: HTML) -> HTML {
            let state: HTML = works ? "<span class=\"badge db\">works</span>" : "<span class=\"badge source\">not yet</span>"
            return "<tr><th scope=\"row\">\(name)</th><td>\(state)</td><td>\(detail)</td></tr>"
        }
        let home = facts.dataDirectory ?? "$PLANTGUIDE_HOME"
        let catalog: HTML = facts.catalogEntries.map { "\(counted($0, "houseplant")) to browse and search." } ?? "The catalog could not be loaded."
        let identify: HTML =
            facts.identification.map { (summary: String) -> HTML in "\(summary)" }
            ?? """
            Needs an on-device model or a Pl@ntNet API key — see below.
            """
        let setupNeeded = facts.identification == nil
        let setup: HTML = """
            <section class="card" aria-labelledby="setup">
            <h2 id="setup">Add identification</h2>
            <p>PlantGuide identifies plants two ways; set up either or both:</p>
            <ol>
            <li><strong>A Pl@ntNet API key</strong> (free, 500 identifications a day): create an account at
            my.plantnet.org, copy your key, and paste it on the <a href="/settings">Settings</a> page
            (or set <code>PLANTNET_API_KEY</code> before starting the server).</li>
            <li><strong>An on-device model</strong> (works offline): put a PlantGuide model file in
            <code>\(home)/models/</code> — <code>plantguide --help</code> lists the model commands.</li>
            </ol>
            </section>
            """
        return Layout.page(
            title: "Home", tab: .home, context: context,
            body: """
                <h1>Welcome to PlantGuide</h1>
                <p>Take a photo of a plant to find out what it is, look plants up in the catalog, and keep track of
                watering and care for the plants you own.</p>
                <p class="row"><a class="button" href="/identify">Identify a plant</a>
                <a class="button secondary" href="/browse">Browse the catalog</a></p>
                <h2>What works on this server</h2>
                <table>
                <thead><tr><th scope="col">Feature</th><th scope="col">State</th><th scope="col">Details</th></tr></thead>
                <tbody>
                \(row("Browse and search", facts.catalogEntries != nil, catalog))
                \(row("Identify from a photo", !setupNeeded, identify))
                \(row("Collection", facts.collection, facts.collection ? "Save identified plants, with photos and history." : "Not installed in this build yet."))
                \(row("Care reminders", facts.care, facts.care ? "Due tasks and a calendar feed." : "Not installed in this build yet."))
                \(row("Settings", facts.settings, facts.settings ? "API key, quota, cache and model." : "Not installed in this build yet."))
                </tbody>
                </table>
                \(setup, if: setupNeeded)
                """
        )
    }
}
