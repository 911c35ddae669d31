import Foundation

/// Where the collection lives: an SQLite file or a PostgreSQL database, parsed from a URL.
///
/// - `sqlite:PATH`, for example `sqlite:/srv/plantguide/collection.sqlite`;
/// - `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&host=/socket/dir]`
///   (also `postgresql://`). With `host=` the server is reached through its Unix socket in that directory, and the
///   authority's host may be empty: `postgres://plantguide@/plantguide?host=/run/postgresql`.
///
/// A password never appears in ``description`` nor in any error: it is shown as `***`.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// An SQLite database file at this path.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(PostgresLocation)

    /// Parses a database URL. Throws ``StoreError/invalid(_:)`` naming what is wrong, with any password redacted.
    public init(url: String) throws(StoreError) {
        let text = url.trimmingCharacters(in: .whitespaces)
        if text.lowercased().hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw .invalid("The database URL \"sqlite:\" names no file; write sqlite:PATH, for example sqlite:/srv/plantguide/collection.sqlite.")
            }
            guard !path.contains("\0") else { throw .invalid("The SQLite path in the database URL contains a NUL character.") }
            self = .sqlite(path: path)
            return
        }
        for scheme in ["postgres://", "postgresql://"] where text.lowercased().hasPrefix(scheme) {
            self = .postgres(try PostgresLocation(parsing: String(text.dropFirst(scheme.count)), original: text))
            return
        }
        throw .invalid(
            "The database URL \"\(Self.redacted(text))\" is neither sqlite:PATH nor postgres://USER@HOST[:PORT]/DATABASE."
        )
    }

    /// The URL with any password replaced by `***`.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): location.description
        }
    }

    /// `text` with whatever stands between the user name and the last `@` of a URL replaced by `***`, so a URL that
    /// failed to parse can still be quoted in a message. It errs on hiding too much: a password with an unencoded `/`,
    /// `?` or `@` is hidden too.
    public static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@"),
            let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}

/// A PostgreSQL database to connect to, parsed from a `postgres://` URL by ``StoreLocation/init(url:)``.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS, as libpq's `sslmode` (only the three modes that need no certificate files).
    public enum SSLMode: String, Sendable, Equatable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS when the server offers it (libpq's default).
        case prefer
        /// TLS or no connection (the server's certificate is verified against the system's roots).
        case require
    }

    /// The role to log in as.
    public var user: String
    /// The password, if the URL has one. Never printed.
    public var password: String?
    /// The TCP host name or address; empty when only a socket directory is given.
    public var host: String
    /// The TCP port, or the number in the socket's file name (`.s.PGSQL.PORT`).
    public var port: Int
    /// The database name.
    public var database: String
    /// The TLS mode (TCP only; a Unix socket never uses TLS).
    public var sslMode: SSLMode
    /// The directory of the server's Unix socket (`?host=/run/postgresql`), when the connection goes through it.
    public var socketDirectory: String?

    /// Creates a location from its parts.
    public init(
        user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
        sslMode: SSLMode = .prefer, socketDirectory: String? = nil
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
        self.socketDirectory = socketDirectory
    }

    /// The path of the server's Unix socket, when ``socketDirectory`` is set.
    public var socketPath: String? {
        socketDirectory.map { "\($0.hasSuffix("/") ? String($0.dropLast()) : $0)/.s.PGSQL.\(port)" }
    }

    /// The URL with the password shown as `***`.
    public var description: String {
        var text = "postgres://\(Self.encode(user))"
        if password != nil { text += ":***" }
        text += "@\(host.contains(":") ? "[\(host)]" : host)"
        if port != 5432 || socketDirectory != nil { text += ":\(port)" }
        text += "/\(Self.encode(database))?sslmode=\(sslMode.rawValue)"
        if let socketDirectory { text += "&host=\(socketDirectory)" }
        return text
    }

    /// `rest` is the URL after `postgres://`; `original` the whole URL, quoted (redacted) in errors.
    init(parsing rest: String, original: String) throws(StoreError) {
        let shown = StoreLocation.redacted(original)
        func bad(_ problem: String) -> StoreError {
            .invalid("The database URL \"\(shown)\" \(problem). Write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require].")
        }
        // The user part ends at the last `@`, so a password with an unencoded `/` or `?` still parses (and stays hidden).
        guard let at = rest.lastIndex(of: "@") else { throw bad("names no user (USER@HOST)") }
        let userInfo = rest[..<at]
        let afterAt = rest[rest.index(after: at)...]
        var beforeQuery = afterAt
        var query: Substring = ""
        if let mark = afterAt.firstIndex(of: "?") {
            beforeQuery = afterAt[..<mark]
            query = afterAt[afterAt.index(after: mark)...]
        }
        guard !beforeQuery.contains("#"), !query.contains("#") else { throw bad("has a fragment (#)") }
        guard let slash = beforeQuery.firstIndex(of: "/") else { throw bad("names no database") }
        let hostPort = beforeQuery[..<slash]
        let path = beforeQuery[beforeQuery.index(after: slash)...]

        let userPart: Substring
        if let colon = userInfo.firstIndex(of: ":") {
            userPart = userInfo[..<colon]
            guard let password = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
                throw bad("has a badly percent-encoded password")
            }
            self.password = password
        } else {
            userPart = userInfo
            self.password = nil
        }
        guard let user = String(userPart).removingPercentEncoding, !user.isEmpty else { throw bad("names no user (USER@HOST)") }
        self.user = user

        var host = ""
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw bad("has an unclosed [ in its host") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("has text after its [host]") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw bad("has the port \"\(portText)\", which is not a number from 1 to 65535")
            }
            self.port = port
        } else {
            self.port = 5432
        }
        self.host = host

        guard let database = String(path).removingPercentEncoding, !database.isEmpty else { throw bad("names no database") }
        guard !database.contains("/") else { throw bad("has a database name with a /") }
        self.database = database

        var sslMode = SSLMode.prefer
        var socketDirectory: String?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? "") : ""
            switch key {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw bad("has sslmode=\(value); PlantGuide knows disable, prefer and require")
                }
                sslMode = mode
            case "host":
                guard value.hasPrefix("/") else { throw bad("has host=\(value); it must be the absolute path of the socket directory") }
                socketDirectory = value
            default:
                throw bad("has the parameter \"\(key)\"; PlantGuide knows sslmode and host")
            }
        }
        self.sslMode = sslMode
        self.socketDirectory = socketDirectory
        guard !host.isEmpty || socketDirectory != nil else {
            throw bad("names no host (give HOST, or ?host=/socket/directory for a Unix socket)")
        }
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/?#"))) ?? text
    }
}
