import Foundation
import Hummingbird
import PlantGuideCore
import NIOCore
import PlantForms
import PlantLocalization
import PlantStore

/// The per-request state the server's middleware fills in: the session, its anti-forgery token,
/// whether it is logged in, and the form body once read.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's address, used to throttle failed log-ins: the connection's peer, or, when that peer is a
    /// trusted reverse proxy, the address the proxy reports in `X-Forwarded-For`.
    public var clientAddress: String
    /// The address the connection comes from (the proxy's, behind one).
    public let peerAddress: String
    /// The session id from the cookie (or a new one).
    public var sessionID = ""
    /// The session's anti-forgery token, to embed in forms.
    public var csrfToken = ""
    /// Whether the session may use the app (always true on loopback without a password).
    public var isLoggedIn = true
    /// The account logged in with this session, when the server has accounts.
    public var user: SessionPrincipal?
    /// Whether the server asks for a password at all.
    public var requiresLogin = false
    /// Whether this session may change what every household shares (the Pl@ntNet key, the identification settings):
    /// an owner of household 1, or anyone on a server without accounts.
    public var mayChangeInstallation: Bool {
        guard let user else { return true }
        return user.role == .owner && user.householdId == 1
    }
    /// The form, when middleware already read and parsed the body.
    public var form: FormData?
    /// Whether the browser's connection was HTTPS: a trusted reverse proxy terminated TLS and said so in
    /// `X-Forwarded-Proto`. Session cookies are then marked `Secure`.
    public var isHTTPS = false
    /// The texts in the language this request's pages are written in (``LanguageMiddleware`` chooses it).
    public var localizer = Localizer.shared(.english)
    /// The language the browser asks for (`Accept-Language`), which a member's own choice may override in ``localizer``.
    public var browserLanguage = InterfaceLanguage.english
    /// The unit this request's pages show temperatures in: the member's choice, else the usual one of the browser's
    /// region (``LanguageMiddleware``).
    public var temperatureUnit = TemperatureUnit.celsius

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "local"
        clientAddress = peerAddress
    }
}
