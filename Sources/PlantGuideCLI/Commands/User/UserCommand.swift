import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideServer
import PlantStore

/// `plantguide user`: the accounts that log in to the web app.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, list and remove the accounts that log in to the web app, and set their passwords.",
        discussion: """
            Every account belongs to the household "Home" for now. An owner manages the settings and the \
            accounts; a member uses the collection. The first account is always an owner, and the last owner \
            cannot be removed. Names are 1 to 64 letters, digits, dots, underscores or hyphens, and ignore \
            letter case. Passwords are read from standard input (one line, at least 8 characters) and stored \
            as PBKDF2-SHA256 hashes (600,000 iterations) in the collection database. Once an account exists, \
            the web app asks everyone to log in, also on 127.0.0.1.

            Examples:
              echo 'a long passphrase' | plantguide user add alice             The first account: an owner.
              echo 'another passphrase' | plantguide user add bob              A member.
              echo 'passphrase three' | plantguide user add carol --role owner
              plantguide user list --json
              echo 'a new passphrase' | plantguide user passwd bob              Also logs bob out everywhere.
              plantguide user remove bob
            """,
        subcommands: [UserAddCommand.self, UserListCommand.self, UserRemoveCommand.self, UserPasswdCommand.self]
    )
}

extension UserRole: ExpressibleByArgument {}

/// Why a `plantguide user` command failed, each saying what to do.
enum UserCommandError: Error, CustomStringConvertible {
    /// The password read from standard input is shorter than 8 characters (or missing).
    case shortPassword(command: String)
    /// The store refused.
    case store(command: String, StoreError)

    var description: String {
        switch self {
        case .shortPassword(let command):
            "plantguide user \(command): give a password of at least 8 characters on standard input, "
                + "e.g. `echo 'a long passphrase' | plantguide user \(command) NAME`."
        case .store(let command, let error):
            "plantguide user \(command): \(error.description)"
        }
    }
}

/// The account commands' shared parts: the database and the password from standard input.
enum UserCommandSupport {
    /// Runs `body` with the accounts of the chosen database (--database, PLANTGUIDE_DATABASE_URL, else the data
    /// directory's), after importing the password file of earlier versions into an SQLite one; a store error is
    /// wrapped for the command.
    static func withAccounts<T: Sendable>(
        _ command: String, _ database: DatabaseOptions, _ body: (any AccountStore, @escaping @Sendable () -> Date) async throws -> T
    ) async throws -> T {
        let environment = ProcessInfo.processInfo.environment
        let now = try CollectionEnvironment.clock(environment)
        do {
            let directory = DataDirectory.resolve(environment: environment)
            return try await database.withStore(directory: directory, environment: environment) { store, sqlite in
                try sqlite?.importPasswordFile(in: directory, now: now())
                return try await body(store, now)
            }
        } catch let error as StoreError {
            throw UserCommandError.store(command: command, error)
        }
    }

    /// One line of standard input as a new password's hash; at least 8 characters.
    static func readPasswordHash(_ command: String) throws -> String {
        let password = readLine(strippingNewline: true) ?? ""
        guard password.count >= 8 else { throw UserCommandError.shortPassword(command: command) }
        return PasswordHash(password: password).encoded
    }
}

/// `plantguide user add NAME [--role owner|member]`.
struct UserAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an account; its password is read from standard input.",
        discussion: """
            The first account is always an owner; later ones are members unless --role owner is given.

            Examples:
              echo 'a long passphrase' | plantguide user add alice
              printf '%s\\n' "$PASSWORD" | plantguide user add bob --role owner
            """
    )

    @Argument(help: "The log-in name: 1 to 64 letters, digits, dots, underscores or hyphens.")
    var name: String

    @Option(help: "owner (manages settings and accounts) or member.")
    var role: UserRole = .member

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard UserAccount.isValidName(name) else {
            throw ValidationError("'\(name)' is not a valid name: use 1 to 64 letters, digits, dots, underscores or hyphens.")
        }
    }

    func run() async throws {
        let (account, count) = try await UserCommandSupport.withAccounts("add", database) { accounts, now in
            // Refuse a taken name before asking for the password's 600,000 rounds.
            if try await accounts.user(named: name) != nil { throw StoreError.userExists(name) }
            let hash = try UserCommandSupport.readPasswordHash("add")
            let account = try await accounts.addUser(name: name, role: role, passwordHash: hash, now: now())
            return (account, try? await accounts.userCount())
        }
        let console = Console()
        if output.json {
            try console.printJSON(UserSummary(account))
        } else {
            let note = account.role != role ? " (the first account is always an owner)" : ""
            console.print("Added \(account.name) as \(account.role.rawValue)\(note).")
            if count == 1 {
                console.print("The web app now asks everyone to log in, also on 127.0.0.1.")
            }
        }
    }
}

/// `plantguide user list [--json]`.
struct UserListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the accounts.",
        discussion: """
            --json prints an array of {name, role, household, createdAt, passwordChangedAt}; never a password hash.

            Examples:
              plantguide user list
              plantguide user list --json
            """
    )

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let accounts = try await UserCommandSupport.withAccounts("list", database) { accounts, _ in try await accounts.users() }
        let console = Console()
        if output.json {
            try console.printJSON(accounts.map(UserSummary.init))
            return
        }
        if accounts.isEmpty {
            console.print("No accounts yet: the web app needs no log-in on 127.0.0.1. Add one with "
                + "`echo 'a long passphrase' | plantguide user add NAME`.")
            return
        }
        let width = accounts.map(\.name.count).max() ?? 0
        for account in accounts {
            let padded = account.name.padding(toLength: max(width, 4), withPad: " ", startingAt: 0)
            console.print("\(padded)  \(account.role.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  "
                + "since \(account.createdAt.formatted(.iso8601))")
        }
        console.print(console.style(counted(accounts.count, "account"), .dim))
    }
}

/// `plantguide user remove NAME`.
struct UserRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an account and end its log-ins.",
        discussion: """
            The household's last owner stays: add another owner first.

            Example:
              plantguide user remove bob
            """
    )

    @Argument(help: "The account's name (any letter case).")
    var name: String

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        try await UserCommandSupport.withAccounts("remove", database) { accounts, _ in try await accounts.removeUser(named: name) }
        Console().print("Removed \(name); its log-ins have ended.")
    }
}

/// `plantguide user passwd NAME`.
struct UserPasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Set an account's password (read from standard input) and end its log-ins everywhere.",
        discussion: """
            Example:
              echo 'a new passphrase' | plantguide user passwd alice
            """
    )

    @Argument(help: "The account's name (any letter case).")
    var name: String

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        try await UserCommandSupport.withAccounts("passwd", database) { accounts, now in
            guard try await accounts.user(named: name) != nil else { throw StoreError.userNotFound(name) }
            let hash = try UserCommandSupport.readPasswordHash("passwd")
            try await accounts.setPassword(user: name, passwordHash: hash, now: now())
        }
        Console().print("The password of \(name) was changed; its log-ins have ended.")
    }
}

