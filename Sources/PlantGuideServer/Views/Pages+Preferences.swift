import PlantGuideCore
import PlantLocalization
import PlantStore

extension Pages {
    /// Settings → Language and units: the logged-in member's language and temperature unit, each automatic unless
    /// chosen. Written in the page's language (the rest of Settings is not translated yet, so the section says its own
    /// language).
    static func preferencesSection(_ user: SessionPrincipal, saved: Bool, browser: InterfaceLanguage, context: AppRequestContext) -> HTML {
        let words = context.localizer
        let language: HTML = words.language == .english ? "" : " lang=\"\(words.language.tag)\""
        func selected(_ isChosen: Bool) -> HTML { isChosen ? " selected" : "" }
        let chosenLanguage = user.preferences.language.flatMap { InterfaceLanguage(tag: $0) }
        let languages: [HTML] = InterfaceLanguage.written.map { option in
            "<option value=\"\(option.tag)\" lang=\"\(option.tag)\"\(selected(chosenLanguage == option))>\(option.endonym)</option>"
        }
        let unit = user.preferences.temperatureUnit
        let notice: HTML = saved ? "<div class=\"notice ok\" role=\"status\">\(words.text("preferences.saved"))</div>" : ""
        return """
            <section class="card" aria-labelledby="me"\(language)><h2 id="me">\(words.text("preferences.heading"))</h2>
            \(notice)<p>\(words.text("preferences.intro"))</p>
            <form method="post" action="/settings/me">\(Layout.csrfField(context))
            <label for="me-language">\(words.text("preferences.language"))</label>
            <select id="me-language" name="language">
            <option value="auto"\(selected(chosenLanguage == nil))>\(words.text("preferences.languageAutomatic", ["language": browser.endonym]))</option>
            \(languages)
            </select>
            <label for="me-temperature">\(words.text("preferences.temperature"))</label>
            <select id="me-temperature" name="temperatureUnit">
            <option value="auto"\(selected(unit == nil))>\(words.text("preferences.temperatureAutomatic"))</option>
            <option value="celsius"\(selected(unit == .celsius))>\(words.text("preferences.celsius"))</option>
            <option value="fahrenheit"\(selected(unit == .fahrenheit))>\(words.text("preferences.fahrenheit"))</option>
            </select>
            <p class="meta">\(words.text("preferences.untranslated"))</p>
            <p><button type="submit">\(words.text("preferences.save"))</button></p>
            </form>
            </section>
            """
    }
}
