import Foundation
import Hummingbird
import Logging
import PlantCatalog
import PlantStore

/// Turns every error into an answer: JSON `{status, message}` for the API, a page with a way to retry
/// for people. Unknown errors become a 500 whose message reveals nothing internal.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            var (status, message, retryAfter) = Self.describe(error)
            // No route for this method at a documented API address: 405 with the methods it does answer (RFC 9110).
            var allow: [String]?
            if error is HTTPError, status == .notFound, let methods = OpenAPIDocument.methods(atPath: request.uri.path),
                !methods.contains(request.method.rawValue) {
                (status, message, allow) = (.methodNotAllowed, Self.defaultMessage(.methodNotAllowed), methods)
            }
            if status == .internalServerError || status == .badGateway {
                context.logger.error(
                    "request failed", metadata: ["path": "\(request.uri.path)", "status": "\(status.code)", "error": "\(type(of: error))"]
                )
            }
            var response: Response
            if RequestGate.wantsJSON(request.uri.path) || request.headers[.accept]?.contains("application/json") == true {
                response = JSONResponse.make(APIErrorBody(status: status.code, message: message), status: status)
            } else {
                // A failed upload is retried from its form; other failed posts have no page to go back to.
                let retry = request.method == .get ? request.uri.description : Self.formPage(ofPost: request.uri.path)
                let page = Pages.error(status: status.code, message: message, retry: retry, context: context)
                response = Response.html(page, status: status)
            }
            if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            if let allow { response.headers[.allow] = allow.joined(separator: ", ") }
            return response
        }
    }

    /// The page whose form a failed post came from, when it has one: Identify, or the plant's page for its photos
    /// and edits (`/collection/{id}/…`).
    static func formPage(ofPost path: String) -> String? {
        if path == "/identify" { return "/identify" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4, segments[1] == "collection", !segments[2].isEmpty else { return nil }
        return "/collection/\(segments[2])"
    }

    static func describe(_ error: any Error) -> (HTTPResponse.Status, String, Int?) {
        switch error {
        case let error as ServerError:
            return (error.status, error.description, error.retryAfter)
        case let error as HTTPError:
            return (error.status, error.body ?? Self.defaultMessage(error.status), nil)
        case let error as any HTTPResponseError:
            return (error.status, Self.defaultMessage(error.status), nil)
        case let error as StoreError:
            switch error {
            case .plantNotFound(let id): return (.notFound, ServerError.notFound("The plant \(id)").description, nil)
            case .invalid: return (.unprocessableContent, error.description, nil)
            default: return (.internalServerError, Self.internalMessage, nil)
            }
        case let error as CatalogError:
            switch error {
            case .queryTooLong, .queryHasTooManyWords: return (.badRequest, error.description, nil)
            case .resourceMissing, .resourceUnreadable: return (.internalServerError, error.description, nil)
            }
        default:
            return (.internalServerError, Self.internalMessage, nil)
        }
    }

    private static let internalMessage =
        "Something went wrong on the server. Try again; if it keeps happening, check the server log."


    static func defaultMessage(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "There is nothing at this address."
        case .methodNotAllowed: "This address does not accept that method."
        case .contentTooLarge: "The upload is too large."
        default: status.reasonPhrase
        }
    }
}
