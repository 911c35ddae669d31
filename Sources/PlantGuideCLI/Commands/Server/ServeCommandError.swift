/// Why `plantguide serve` did not start (or store a password), each saying what to do. Thrown from `run()`, so
/// the message stands alone instead of under the top-level usage that a `ValidationError` there would print.
enum ServeCommandError: Error, CustomStringConvertible {
    /// A non-loopback address was asked for and no password is stored.
    case needsPassword(host: String, port: Int)
    /// The password read by `--set-password` is too short.
    case shortPassword
    /// The stored password hash cannot be read.
    case damagedPasswordFile(path: String)
    /// The server configuration was refused for another reason.
    case invalidConfiguration(String)

    var description: String {
        switch self {
        case .needsPassword(let host, let port):
            """
            plantguide serve: listening on \(host) makes PlantGuide reachable from your network, so it needs a \
            log-in first, and no account exists.
            Add one (its password is read from standard input and stored hashed), then start the server again:
              echo 'a long passphrase' | plantguide user add alice
              plantguide serve --host \(host) --port \(port)
            Or leave out --host to serve on 127.0.0.1 only, without a password.
            """
        case .shortPassword:
            "plantguide serve --set-password: use a password of at least 8 characters."
        case .damagedPasswordFile(let path):
            "plantguide serve: the stored password \(path) is damaged. Set it again with `plantguide serve --set-password`."
        case .invalidConfiguration(let message):
            "plantguide serve: \(message)"
        }
    }
}
