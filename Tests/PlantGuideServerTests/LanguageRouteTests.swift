import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideLive
import PlantLocalization
import Testing
@testable import PlantGuideServer

/// Each page is chosen in the language the browser asks for (#40 step 2): its chrome in that language, its body marked as
/// English while the body is not translated, and the answer says which language it is in and that it varies.
@Suite struct LanguageRouteTests {
    @Test(arguments: [
        (nil as String?, "en", "Identify", "Skip to content"),
        ("fr-CA, fr;q=0.9, en;q=0.5", "fr", "Identifier", "Aller au contenu"),
        ("de", "de", "Bestimmen", "Zum Inhalt springen"),
        ("pt-BR, es;q=0.8", "es", "Identificar", "Saltar al contenido"),
        ("ja, fr;q=0", "en", "Identify", "Skip to content"),
    ])
    func thePageIsInTheLanguageAskedFor(acceptLanguage: String?, tag: String, identify: String, skip: String) async throws {
        try await makeApp().test(.router) { client in
            var fields: HTTPFields = [:]
            if let acceptLanguage { fields[.acceptLanguage] = acceptLanguage }
            try await client.execute(uri: "/browse", method: .get, headers: fields) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("<html lang=\"\(tag)\">"), "\(html.prefix(200))")
                #expect(response.headers[.contentLanguage] == tag)
                #expect(response.headers[.vary]?.contains("Accept-Language") == true)
                #expect(html.contains(">\(identify)</a>"))
                #expect(html.contains(">\(skip)</a>"))
                // The body is not translated yet: inside another language's page it says it is English.
                #expect(html.contains(tag == "en" ? "<main id=\"main\">" : "<main id=\"main\" lang=\"en\">"))
            }
        }
    }

    /// The log-in page, the first a person on the network sees, is written in the language asked for, body included.
    @Test func theLogInPageIsInTheLanguageAskedFor() async throws {
        let configuration = ServerConfiguration(host: "0.0.0.0", passwordHash: PasswordHash(password: "a long passphrase", iterations: 1_000))
        try await makeApp(configuration: configuration).test(.router) { client in
            let session = try await Session.open(client)
            var fields = session.headers
            fields[.acceptLanguage] = "fr"
            try await client.execute(uri: "/login", method: .get, headers: fields) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("<html lang=\"fr\">") && html.contains("<main id=\"main\">"), "\(html)")
                #expect(html.contains("<h1>Connexion</h1>") && html.contains(">Mot de passe</label>"))
                #expect(html.contains("<button type=\"submit\">Se connecter</button>"))
                #expect(html.contains("demande donc le mot de passe"))
                #expect(!html.contains("Log in"))
            }
        }
    }

    /// An error page's own words follow the language; the error's message, not keyed yet, is marked English.
    @Test func anErrorPageIsInTheLanguageAskedFor() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/no-such-page", method: .get, headers: [.acceptLanguage: "de-AT"]) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentLanguage] == "de")
                let html = String(buffer: response.body)
                #expect(html.contains("<h1>Etwas ist schiefgelaufen</h1>") && html.contains("HTTP-Status 404"), "\(html)")
                #expect(html.contains("<title>Fehler 404 · PlantGuide</title>"))
                #expect(html.contains("<div class=\"notice error\" role=\"alert\"><p lang=\"en\">"))
                #expect(html.contains(">Zurück zur Startseite</a>"))
            }
        }
    }

    /// `en-XA` is chosen only where the server allows it (`PLANTGUIDE_PSEUDO_LOCALE=1`); elsewhere it is no language
    /// PlantGuide writes, and the page is English.
    @Test func thePseudoLanguageOnlyWhereTheServerAllowsIt() async throws {
        var configuration = ServerConfiguration()
        configuration.pseudoLocale = true
        for (allowed, app) in [(true, makeApp(configuration: configuration)), (false, makeApp())] {
            try await app.test(.router) { client in
                try await client.execute(uri: "/browse", method: .get, headers: [.acceptLanguage: "en-XA"]) { response in
                    let html = String(buffer: response.body)
                    #expect(html.contains(allowed ? "<html lang=\"en-XA\">" : "<html lang=\"en\">"))
                    #expect(html.contains("⟦") == allowed)
                }
            }
        }
    }

    /// Every key the chrome, the log-in page and the error page use is written in every language, and a placeholder in
    /// a translation is English's.
    @Test func theChromeIsTranslatedInEveryLanguage() throws {
        let keys = ["nav.label", "nav.identify", "nav.browse", "nav.collection", "nav.care", "nav.settings", "layout.skip",
                    "layout.offline", "layout.signedIn", "layout.logOut", "layout.footer", "login.title", "login.introPassword",
                    "login.introAccount", "login.userName", "login.oneAccountHint", "login.password", "login.submit",
                    "error.title", "error.heading", "error.status", "error.retry", "error.back"]
        let english = try Localizer.bundled(.english)
        for language in InterfaceLanguage.written {
            let words = try Localizer.bundled(language)
            for key in keys {
                #expect(words.isTranslated(key), "\(language) lacks \(key)")
                #expect(words.text(key) != key)
            }
            #expect(words.text("layout.signedIn", ["name": "Ana"]).contains("Ana"))
            #expect(words.text("error.status", ["status": "404"]).contains("404"))
        }
        #expect(english.text("layout.signedIn", ["name": "Ana"]) == "Signed in as Ana")
        let shared = Localizer.shared(.german)
        #expect(shared.language == .german && shared.text("nav.care") == "Pflege")
    }

    /// An answer that is not a page does not change with the language (yet), so it says neither header.
    @Test func anAnswerThatIsNoPageNamesNoLanguage() async throws {
        try await makeApp().test(.router) { client in
            var headers: HTTPFields = [:]
            headers[.acceptLanguage] = "fr"
            try await client.execute(uri: "/healthz", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLanguage] == nil)
                #expect(response.headers[.vary] == nil)
            }
        }
    }
}

/// The Care page, the one people open every day, in the language asked for: its words, the tasks' names and the dates;
/// what code writes in English still (why a date is what it is) says so.
@Suite struct CarePageLanguageTests {
    /// Noon in the server's time zone, so a task due three days before is due on 18 September wherever the test runs.
    static let now = Calendar.current.date(from: DateComponents(year: 2026, month: 9, day: 21, hour: 12)) ?? Date()
    static let overdue = now.addingTimeInterval(-3 * 86_400)

    static func app() -> some ApplicationProtocol {
        let tasks = [
            DueCareItem(id: "7-water", plantID: "7", plantName: "Snowball", action: "Water", due: overdue, why: "every 9 days: the guide says 7"),
            DueCareItem(id: "7-mist", plantID: "7", plantName: "Snowball", action: "Mist", due: now.addingTimeInterval(2 * 86_400)),
        ]
        let care = CareCapability(
            due: { through in tasks.filter { $0.due <= through } }, markDone: { _ in }, snooze: { _, _ in },
            calendar: { _ in "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n" }
        )
        return makeApp(dependencies: ServerDependencies(catalog: fixtureCatalog, care: care, now: { now }))
    }

    @Test(arguments: [
        ("en", "<h1>Care</h1>", "<strong>Water</strong>", "Due ", "<span class=\"badge\">overdue</span>", "<p class=\"meta why\">Why: every 9 days"),
        ("fr", "<h1>Entretien</h1>", "<strong>Arroser</strong>", "À faire le ", "<span class=\"badge\">en retard</span>",
         "<p class=\"meta why\">Pourquoi\u{202F}: <span lang=\"en\">every 9 days"),
        ("de", "<h1>Pflege</h1>", "<strong>Gießen</strong>", "Fällig am ", "<span class=\"badge\">überfällig</span>", "Warum: <span lang=\"en\">"),
        ("es", "<h1>Cuidados</h1>", "<strong>Regar</strong>", "Para el ", "<span class=\"badge\">con retraso</span>",
         "Por qué: <span lang=\"en\">"),
    ])
    func theCarePageIsInTheLanguageAskedFor(tag: String, heading: String, task: String, due: String, overdue: String, why: String) async throws {
        let words = Localizer.shared(try #require(InterfaceLanguage(tag: tag)))
        // The day as the language writes it (ICU's format), inside <time> with the machine-readable date.
        let day = "\(due)<time datetime=\"\(Self.overdue.formatted(.iso8601))\">\(Layout.day(Self.overdue, words))</time>"
        try await Self.app().test(.router) { client in
            try await client.execute(uri: "/care", method: .get, headers: [.acceptLanguage: tag]) { response in
                let html = String(buffer: response.body)
                #expect(response.headers[.contentLanguage] == tag)
                // A keyed body says nothing of its own language: the page's is its language.
                #expect(html.contains("<main id=\"main\">"))
                for expected in [heading, task, day, overdue, why] {
                    #expect(html.contains(expected), "\(tag): \(expected)")
                }
            }
        }
    }

    /// Each language writes the day its own way (not English's format with translated words around it).
    @Test func eachLanguageWritesTheDayItsOwnWay() {
        let days = InterfaceLanguage.written.map { Layout.day(Self.overdue, Localizer.shared($0)) }
        #expect(Set(days).count == days.count, "\(days)")
        #expect(days.allSatisfy { $0.contains("18") && $0.contains("2026") }, "\(days)")
    }
}

/// The home page, the first after the log-in, in the language asked for, links and code names kept as markup.
@Suite struct HomePageLanguageTests {
    @Test func theHomePageIsInTheLanguageAskedForWithItsLinks() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/", method: .get, headers: [.acceptLanguage: "es"]) { response in
                let html = String(buffer: response.body)
                #expect(response.headers[.contentLanguage] == "es")
                #expect(html.contains("<main id=\"main\">"))
                #expect(html.contains("<h1>Te damos la bienvenida a PlantGuide</h1>"))
                #expect(html.contains("<title>Inicio"), "\(html.prefix(300))")
                // No identification here: the set-up steps, with the link and the variable as markup.
                #expect(html.contains("pégala en la página <a href=\"/settings\">Ajustes</a> (o define <code>PLANTNET_API_KEY</code>"))
                #expect(html.contains("<span class=\"badge source\">aún no</span>"))
            }
        }
    }

    @Test func markupPlaceholdersAreInsertedAndTextIsEscaped() throws {
        let words = Localizer(table: StringTable(language: .english, entries: ["k": .text("Put {file} in {folder} & go")]),
                              english: StringTable(language: .english, entries: ["k": .text("Put {file} in {folder} & go")]))
        let html = Layout.text(words, "k", markup: ["folder": "<code>models/</code>"], ["file": "<b>\u{E000}0\u{E001}x</b>"])
        #expect(html.markup == "Put &lt;b&gt;0x&lt;/b&gt; in <code>models/</code> &amp; go")
    }
}
