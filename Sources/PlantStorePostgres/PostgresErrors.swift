import Foundation
import PlantStore
import PostgresNIO

/// Turns postgres-nio's errors into ``StoreError``s a person can act on. postgres-nio's own `PSQLError.description` is
/// deliberately vague (it may not print server text), so the text here is built from the server's fields: the SQLSTATE,
/// the message and the constraint's name. Every text passes through ``scrub(_:location:)`` so the password never shows.
enum PostgresErrors {
    /// An error from opening (connecting and logging in) as ``StoreError/connection(location:reason:)``.
    static func connection(_ error: any Error, location: PostgresLocation, timeout: Duration) -> StoreError {
        .connection(location: location.description, reason: scrub(connectionReason(error, location: location, timeout: timeout), location: location))
    }

    /// An error from a statement as a ``StoreError``: ``StoreError/connection(location:reason:)`` when the connection
    /// was lost, ``StoreError/database(operation:reason:)`` otherwise (naming the violated constraint).
    static func storeError(_ error: any Error, operation: String, location: PostgresLocation) -> StoreError {
        let error = unwrap(error)
        if let psql = error as? PSQLError, psql.code != .server {
            switch psql.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed, .clientClosedConnection:
                return .connection(
                    location: location.description,
                    reason: scrub(connectionReason(error, location: location, timeout: .seconds(0)), location: location)
                )
            default:
                break
            }
        }
        return .database(operation: operation, reason: scrub(statementReason(error), location: location))
    }

    /// The error inside a transaction's wrapper: the body's, else BEGIN's or COMMIT's.
    static func unwrap(_ error: any Error) -> any Error {
        guard let transaction = error as? PostgresTransactionError else { return error }
        return transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? error
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        guard let psql = error as? PSQLError, psql.code == .server else { return nil }
        return psql.serverInfo?[.sqlState]
    }

    private static func connectionReason(_ error: any Error, location: PostgresLocation, timeout: Duration) -> String {
        let endpoint = location.socketPath.map { "the socket \($0)" } ?? "\(location.host):\(location.port)"
        if error is PostgresStore.ConnectTimeout {
            return "no answer from \(endpoint) within \(timeout) (is PostgreSQL running there, and reachable?)"
        }
        guard let psql = error as? PSQLError else {
            return "\(endpoint): \(error)"
        }
        switch psql.code {
        case .server:
            let state = psql.serverInfo?[.sqlState] ?? ""
            let message = psql.serverInfo?[.message] ?? "an error"
            switch state {
            case "28P01", "28000":
                return "the server refused the log-in as \"\(location.user)\" (wrong password, or no such role): \(message)"
            case "3D000":
                return "the database \"\(location.database)\" does not exist on \(endpoint) (create it with createdb)"
            case "53300":
                return "the server has too many connections: \(message)"
            case "57P03":
                return "the server is starting up or shutting down: \(message)"
            default:
                return "the server answered \(state): \(message)"
            }
        case .connectionError:
            if let channelError = psql.underlying as? ChannelError, case .connectTimeout = channelError {
                return "no answer from \(endpoint) within \(timeout) (is PostgreSQL running there, and reachable?)"
            }
            let underlying = psql.underlying.map { " (\($0))" } ?? ""
            return "no server answers at \(endpoint)\(underlying); is PostgreSQL running there?"
        case .sslUnsupported:
            return "the server at \(endpoint) does not offer TLS, and the URL says sslmode=require"
        case .authMechanismRequiresPassword:
            return "the server asks for a password for \"\(location.user)\" and the URL has none"
        case .unsupportedAuthMechanism, .saslError:
            return "the server asks for a log-in method PlantGuide cannot use (\(psql.code))"
        case .serverClosedConnection, .uncleanShutdown:
            return "the server at \(endpoint) closed the connection"
        case .poolClosed, .clientClosedConnection:
            return "the connection pool was closed"
        default:
            return "\(endpoint): \(psql.code)"
        }
    }

    private static func statementReason(_ error: any Error) -> String {
        guard let psql = error as? PSQLError else { return "\(error)" }
        guard psql.code == .server, let info = psql.serverInfo else {
            return "\(psql.code)"
        }
        let state = info[.sqlState] ?? "?"
        var text = info[.message] ?? "error \(state)"
        if let constraint = info[.constraintName] {
            let kind =
                switch state {
                case "23502": "NOT NULL"
                case "23503": "foreign key"
                case "23505": "unique"
                case "23514": "CHECK"
                case "23P01": "exclusion"
                default: "integrity"
                }
            text = "\(kind) constraint \(constraint) violated: \(text)"
        } else if state == "23502", let column = info[.columnName] {
            text = "NOT NULL constraint on \(info[.tableName] ?? "?").\(column) violated: \(text)"
        }
        if let detail = info[.detail] { text += " (\(detail))" }
        return "\(text) [SQLSTATE \(state)]"
    }

    /// A violated constraint (SQLSTATE class 23) as the SQLite store reports one, ``StoreError/invalid(_:)``, for the
    /// collection's own changes; `nil` for any other error.
    static func refusedChange(_ error: any Error, location: PostgresLocation) -> StoreError? {
        let error = unwrap(error)
        guard let state = sqlState(error), state.hasPrefix("23") else { return nil }
        return .invalid("The collection refused the change (\(scrub(statementReason(error), location: location))).")
    }

    /// `text` with the location's password, raw and percent-encoded, replaced by `***`.
    static func scrub(_ text: String, location: PostgresLocation) -> String {
        guard let password = location.password, !password.isEmpty else { return text }
        var result = text.replacingOccurrences(of: password, with: "***")
        if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != password {
            result = result.replacingOccurrences(of: encoded, with: "***")
        }
        return result
    }
}
