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
