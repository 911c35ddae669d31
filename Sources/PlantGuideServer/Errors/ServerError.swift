import Foundation
import HTTPTypes
import PlantForms
import PlantGuideCore

/// What can go wrong while serving a request, with the HTTP status each case maps to at the edge.
public enum ServerError: Error, Sendable, Equatable {
    /// The request is malformed (a missing field, an unknown option).
    case badRequest(String)
    /// Nothing exists at this address or with this name.
    case notFound(String)
    /// The upload is not one of the accepted image types (judged by its content, not its name).
    case unsupportedImage(String)
    /// The request body is larger than the configured limit.
    case payloadTooLarge(limit: Int)
    /// A part of the request is larger than its limit (a form field, a photo's pixels); the message says which.
    case tooLarge(String)
    /// The URL is longer than ``PlantGuideCore/InputLimits/urlBytes``.
    case uriTooLong(limit: Int)
    /// The request body did not arrive in full in time (408).
    case requestTimeout(seconds: Int)
    /// The request is well formed but a value in it is refused (a nickname over its limit, a photo too
    /// damaged or too small to read); the message says which and why.
    case unprocessable(String)
    /// The request clashes with what exists (an account name taken, in any letter case).
    case conflict(String)
    /// The account logged in may not do this (a member changing what only an owner may).
    case forbidden(String)
    /// A form or API call arrived without the anti-forgery token of its session.
    case csrfRejected
    /// The server is exposed and the request carries no valid session.
    case unauthenticated
    /// The password was wrong.
    case invalidCredentials
    /// A log-in without a user name where there are several accounts: it cannot say whose password it is.
    case userNameRequired
    /// Too many failed log-ins from one client; try again after the given number of seconds.
    case tooManyLoginAttempts(retryAfter: Int)
    /// The identification queue is full; try again after the given number of seconds.
    case overloaded(retryAfter: Int)
    /// The feature needs a part that is not installed or configured yet (a model, an API key, the store).
    case capabilityMissing(String)
    /// The identification or store below the server failed; the message says why.
    case failed(String)

    /// The HTTP status for this error.
    public var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .unsupportedImage: .unsupportedMediaType
        case .payloadTooLarge, .tooLarge: .contentTooLarge
        case .uriTooLong: .uriTooLong
        case .requestTimeout: .requestTimeout
        case .unprocessable: .unprocessableContent
        case .conflict: .conflict
        case .csrfRejected, .forbidden: .forbidden
        case .unauthenticated, .invalidCredentials, .userNameRequired: .unauthorized
        case .tooManyLoginAttempts: .tooManyRequests
        case .overloaded: .serviceUnavailable
        case .capabilityMissing: .notImplemented
        case .failed: .badGateway
        }
    }

    /// Seconds a client should wait before retrying, when the error is temporary.
    public var retryAfter: Int? {
        switch self {
        case .tooManyLoginAttempts(let seconds), .overloaded(let seconds): seconds
        default: nil
        }
    }
}

extension ServerError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .badRequest(let message): message
        case .notFound(let what): "\(what) was not found."
        case .unsupportedImage(let detail): "Only \(ImageFormat.acceptedNames) photos are accepted (\(detail))."
        case .payloadTooLarge(let limit): "The request body is larger than the limit of \(Self.bytes(limit))."
        case .tooLarge(let message): message
        case .uriTooLong(let limit): "The address is longer than the limit of \(Self.bytes(limit))."
        case .requestTimeout(let seconds): "The request body did not arrive within \(counted(seconds, "second")). Check the connection and send it again."
        case .unprocessable(let message): message
        case .conflict(let message): message
        case .forbidden(let message): message
        case .csrfRejected: "The form has expired or did not come from this site. Reload the page and try again."
        case .unauthenticated: "Log in first."
        case .invalidCredentials: "That user name or password is not right."
        case .userNameRequired: "Enter your user name as well: this PlantGuide has several accounts."
        case .tooManyLoginAttempts(let seconds): "Too many failed log-ins. Try again in \(counted(seconds, "second"))."
        case .overloaded(let seconds): "The server is busy identifying other photos. Try again in \(counted(seconds, "second"))."
        case .capabilityMissing(let message): message
        case .failed(let message): message
        }
    }

    public var errorDescription: String? { description }

    /// `25 MB`, `64 KB`, `512 bytes`: limits as people read them.
    static func bytes(_ count: Int) -> String { InputLimits.bytes(count) }

    /// The answer to a form that could not be read: 400 when malformed, 413 when over a limit.
    init(_ error: FormError) {
        switch error {
        case .malformed(let message): self = .badRequest(message)
        case .tooLarge(let message): self = .tooLarge(message)
        }
    }
}
