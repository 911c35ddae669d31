import AsyncHTTPClient
import NIOCore
import NIOPosix

/// Why an exchange failed, sorted into what a caller acts on. The reasons never contain the request's URL (which
/// can carry a key).
public enum HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer within the time allowed.
    case timedOut
    /// The task was cancelled (the caller gave up, or the client is shutting down).
    case cancelled
    /// The answer was larger than the caller accepts.
    case tooLarge
    /// The service could not be reached or the connection broke: no network, unknown host, refused, reset, TLS.
    case unreachable(String)

    /// Sorts an error thrown by `HTTPClient`.
    public init(_ error: any Error) {
        switch error {
        case let failure as HTTPFailure:
            self = failure
        case is CancellationError:
            self = .cancelled
        case is NIOTooManyBytesError:
            self = .tooLarge
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout: self = .timedOut
            case .cancelled: self = .cancelled
            case .connectTimeout: self = .unreachable("the connection timed out")
            case .remoteConnectionClosed: self = .unreachable("the connection was closed")
            case .alreadyShutdown: self = .unreachable("the HTTP client is shut down")
            case .invalidURL, .emptyHost, .emptyScheme: self = .unreachable("the address is not a valid URL")
            default: self = .unreachable("\(error)")
            }
        case let error as NIOConnectionError:
            let cause = error.connectionErrors.first.map { " (\(Self.reason($0.error)))" }
                ?? error.dnsAError.map { _ in " (unknown host)" } ?? ""
            self = .unreachable("cannot connect to \(error.host):\(error.port)\(cause)")
        default:
            self = .unreachable(Self.reason(error))
        }
    }

    /// A short reason for a low-level error: the system's words for an errno, else the error's own description.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return "\(error)" }
        if error is SocketAddressError { return "unknown host" }
        return "\(error)"
    }

    public var description: String {
        switch self {
        case .timedOut: "no answer in time"
        case .cancelled: "the request was cancelled"
        case .tooLarge: "the answer was too large"
        case .unreachable(let reason): reason
        }
    }
}
