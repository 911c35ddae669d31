import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlantGuideCore
import PlantLocalization
import PlantStore
import Testing
@testable import PlantGuideServer

/// A member's own language and temperature unit (#40 step 3), over real HTTP with a real SQLite collection: chosen on
/// the Settings page, they override the browser's language on every page, error pages included; the browser's language
/// is noted for texts sent while the member is away.
@Suite struct MemberPreferencesRouteTests {
    @Test func aMemberChoosesTheirLanguageAndUnitOnTheSettingsPage() async throws {
        let (database, home) = try AccountRouteTests.database([("alice", .owner, "alice passphrase"), ("bob", .member, "bob passphrase")])
        defer { try? FileManager.default.removeItem(at: home) }
        try await AccountRouteTests.app(database).test(.live) { client in
            let opened = try await Session.open(client)
            let cookie = try #require(try await AccountRouteTests.logIn(client, opened, user: "alice", password: "alice passphrase").cookie)
            let session = Session(cookie: cookie, csrf: try await AccountRouteTests.state(client, cookie: cookie).csrfToken)
            var english = session.headers
            english[.acceptLanguage] = "en-GB"

            // Automatic: the browser's language, which is noted.
            try await client.execute(uri: "/settings", method: .get, headers: english) { response in
                let html = String(buffer: response.body)
                #expect(response.headers[.contentLanguage] == "en")
                #expect(html.contains("<h2 id=\"me\">Language and units</h2>"))
                #expect(html.contains("<option value=\"auto\" selected>Automatic: your browser’s (English)</option>"))
                #expect(html.contains("<option value=\"fr\" lang=\"fr\">Français</option>"))
            }
            #expect(try database.user(named: "alice")?.lastLanguage == "en")

            // Choosing French and Fahrenheit.
            let (headers, body) = session.form([("language", "fr"), ("temperatureUnit", "fahrenheit")])
            try await client.execute(uri: "/settings/me", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/settings?me=1#me")
            }
            #expect(try database.user(named: "alice")?.preferences == MemberPreferences(language: "fr", temperatureUnit: .fahrenheit))
            #expect(try database.user(named: "bob")?.preferences == MemberPreferences())

            // Every page is French now, though the browser asks for English; the section says what was chosen.
            try await client.execute(uri: "/settings?me=1", method: .get, headers: english) { response in
                let html = String(buffer: response.body)
                #expect(response.headers[.contentLanguage] == "fr")
                #expect(html.contains("<html lang=\"fr\">"))
                #expect(html.contains(">Réglages</a>"))
                #expect(html.contains("<section class=\"card\" aria-labelledby=\"me\" lang=\"fr\"><h2 id=\"me\">Langue et unités</h2>"))
                #expect(html.contains("Enregistré."))
                #expect(html.contains("<option value=\"fr\" lang=\"fr\" selected>Français</option>"))
                #expect(html.contains("<option value=\"fahrenheit\" selected>Degrés Fahrenheit (°F)</option>"))
                // The browser's language is still what "automatic" would give.
                #expect(html.contains("Automatique\u{202F}: celle de votre navigateur (English)"))
            }
            try await client.execute(uri: "/no-such-page", method: .get, headers: english) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentLanguage] == "fr")
                #expect(String(buffer: response.body).contains("Une erreur s’est produite"))
            }
            // The browser changed language: noted, though the pages stay French.
            var german = session.headers
            german[.acceptLanguage] = "de-AT"
            try await client.execute(uri: "/care", method: .get, headers: german) { response in
                #expect(response.headers[.contentLanguage] == "fr")
            }
            #expect(try database.user(named: "alice")?.lastLanguage == "de")

            // Refused values change nothing.
            for (field, value) in [("language", "xx"), ("temperatureUnit", "kelvin"), ("language", "en-XA")] {
                let (headers, body) = session.form([(field, value)])
                try await client.execute(uri: "/settings/me", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .badRequest, "\(field)=\(value)")
                }
            }
            #expect(try database.user(named: "alice")?.preferences == MemberPreferences(language: "fr", temperatureUnit: .fahrenheit))

            // A field left out keeps its value.
            let (oneHeaders, oneBody) = session.form([("temperatureUnit", "celsius")])
            try await client.execute(uri: "/settings/me", method: .post, headers: oneHeaders, body: oneBody) { response in
                #expect(response.status == .seeOther)
            }
            #expect(try database.user(named: "alice")?.preferences == MemberPreferences(language: "fr", temperatureUnit: .celsius))

            // Back to automatic: the browser's language again.
            let (autoHeaders, autoBody) = session.form([("language", "auto"), ("temperatureUnit", "auto")])
            try await client.execute(uri: "/settings/me", method: .post, headers: autoHeaders, body: autoBody) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/settings", method: .get, headers: german) { response in
                #expect(response.headers[.contentLanguage] == "de")
                #expect(String(buffer: response.body).contains("<h2 id=\"me\">Sprache und Einheiten</h2>"))
            }
        }
    }

    /// Without a log-in there is no account to keep preferences for.
    @Test func theFormNeedsALogIn() async throws {
        try await makeApp().test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("language", "fr")])
            try await client.execute(uri: "/settings/me", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(!String(buffer: response.body).contains("id=\"me\""))
            }
        }
    }

    /// Temperatures in the unit chosen, or the one usual where the browser's region is.
    @Test func temperaturesConvertAndFollowTheRegion() {
        #expect(TemperatureUnit.celsius.range(celsius: 16, 29) == "16–29 °C")
        #expect(TemperatureUnit.fahrenheit.range(celsius: 16, 29) == "61–84 °F")
        #expect(TemperatureUnit.fahrenheit.degrees(celsius: -40) == -40)
        #expect(TemperatureUnit.fahrenheit.degrees(celsius: 0) == 32)
        #expect(TemperatureUnit.usual(forTag: "en-US") == .fahrenheit)
        #expect(TemperatureUnit.usual(forTag: "es_US.UTF-8") == .fahrenheit)
        #expect(TemperatureUnit.usual(forTag: "en-GB") == .celsius)
        #expect(TemperatureUnit.usual(forTag: "en") == .celsius)
        #expect(TemperatureUnit.usual(forTag: "zh-Hant-TW") == .celsius)
        #expect(TemperatureUnit.usual(forTag: "en-PR") == .fahrenheit)
        #expect(TemperatureUnit.fahrenheit.convertingRanges(in: "high humidity · 16–29 °C · toxic to cats")
            == "high humidity · 61–84 °F · toxic to cats")
        #expect(TemperatureUnit.celsius.convertingRanges(in: "5–10 °C") == "5–10 °C")
        // The region of the range that chose the language, not of the header's first range.
        #expect(InterfaceLanguage.preferredRange(acceptLanguage: "de;q=0.5, en-US;q=0.9")?.range == "en-US")
        #expect(InterfaceLanguage.preferredRange(acceptLanguage: "en-US;q=0, fr-CA;q=0.8, en;q=0.5")?.range == "fr-CA")
        #expect(InterfaceLanguage.preferredRange(acceptLanguage: "pt-BR") == nil)
    }
}
