import HTTPTypes
import Hummingbird
import PlantLocalization

/// Chooses the language of each request's pages from `Accept-Language` (English when it names none PlantGuide writes)
/// and says it on every HTML page: `Content-Language`, and `Vary: Accept-Language`, since the same address answers in
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
        let language = request.headers[.acceptLanguage].flatMap {
            InterfaceLanguage.preferred(acceptLanguage: $0, pseudoAllowed: pseudoAllowed)
        } ?? .english
        context.localizer = Localizer.shared(language)
        var response = try await next(request, context)
        guard response.headers[.contentType]?.hasPrefix("text/html") == true else { return response }
        // The language the page is written in: English where the table asked for could not be read.
        response.headers[.contentLanguage] = context.localizer.language.tag
        if let vary = response.headers[.vary] {
            if !vary.lowercased().contains("accept-language") { response.headers[.vary] = vary + ", Accept-Language" }
        } else {
            response.headers[.vary] = "Accept-Language"
        }
        return response
    }
}
