import HTTPTypes
import Hummingbird
import PlantGuideCore
import PlantLocalization
import PlantStore

/// Chooses the language of each request's pages from `Accept-Language` (English when it names none PlantGuide writes),
/// and the unit of its temperatures from the region of the range that chose it (°F for `en-US`), and says the language
/// on every HTML page: `Content-Language`, and `Vary: Accept-Language`, since the same address answers in
/// other languages and a cache must not hand one person's page to another. Other answers (JSON, photos, scripts) do
/// not change with the language yet, so they say neither.
///
/// The `en-XA` pseudo-language is chosen only when the server allows it (``ServerConfiguration/pseudoLocale``).
struct LanguageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// Whether `Accept-Language: en-XA` chooses the pseudo-language.
    var pseudoAllowed = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let chosen = request.headers[.acceptLanguage].flatMap {
            InterfaceLanguage.preferredRange(acceptLanguage: $0, pseudoAllowed: pseudoAllowed)
        }
        let language = chosen?.language ?? .english
        context.localizer = Localizer.shared(language)
        context.browserLanguage = language
        context.temperatureUnit = chosen.map { TemperatureUnit.usual(forTag: $0.range) } ?? .celsius
        var response = try await next(request, context)
        guard response.headers[.contentType]?.hasPrefix("text/html") == true else { return response }
        // The language the page is written in: English where the table asked for could not be read. A member's own
        // choice (``MemberPreferencesMiddleware``) has said it already.
        if response.headers[.contentLanguage] == nil { response.headers[.contentLanguage] = context.localizer.language.tag }
        if let vary = response.headers[.vary] {
            if !vary.lowercased().contains("accept-language") { response.headers[.vary] = vary + ", Accept-Language" }
        } else {
            response.headers[.vary] = "Accept-Language"
        }
        return response
    }
}

/// Writes the pages of a logged-in member in the language they chose on the Settings page, with temperatures in their
/// unit, whatever the browser asks; and, on each page they load, notes the browser's language when it changed (kept for
/// texts sent while they are away, which later steps of #40 write). Runs after ``RequestGate``, which reads who is
/// logged in: the errors `RequestGate` itself answers (a refused form token, an owner-only page) stay in the browser's
/// language.
struct MemberPreferencesMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// Where the browser's language is noted; `nil` without accounts.
    var accounts: AccountDirectory?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let user = context.user else { return try await next(request, context) }
        var context = context
        let browser = context.browserLanguage
        if let unit = user.preferences.temperatureUnit { context.temperatureUnit = unit }
        let chosen = user.preferences.language.flatMap { InterfaceLanguage(tag: $0) }
        if let chosen, chosen != browser { context.localizer = Localizer.shared(chosen) }
        var response = try await next(request, context)
        guard request.method == .get, response.headers[.contentType]?.hasPrefix("text/html") == true else { return response }
        if chosen != nil { response.headers[.contentLanguage] = context.localizer.language.tag }
        // Once per page, not per script, photo or API call; and only when it changed.
        if let accounts, browser != .pseudo, user.lastLanguage != browser.tag {
            do {
                try await accounts.store.noteLastLanguage(browser.tag, userId: user.userId)
            } catch {
                context.logger.error("the member's language not noted", metadata: ["error": "\(error)"])
            }
        }
        return response
    }
}
