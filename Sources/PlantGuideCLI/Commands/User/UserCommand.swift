import ArgumentParser
import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantStore

/// `plantguide user`: the accounts that log in to the web app.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, list and remove the accounts that log in to the web app, and set their passwords.",
        discussion: """
            Every account belongs to one household, which shares one collection: plants, photos, care log, \
            identifications and the calendar address. A household sees nothing of another's. Accounts go to the \
            household "Home" unless --household names another (made with its first account, which is its owner). \
            An owner manages the household's accounts and calendar address; owners of "Home" also the Pl@ntNet key \
            and the identification settings, which every household shares. A member uses the collection. A \
            household's first account is always an owner, and its last owner cannot be removed. Names are 1 to 64 letters, digits, dots, underscores or hyphens, and ignore \
            letter case. Passwords are read from standard input (one line, at least 8 characters) and stored \
            as PBKDF2-SHA256 hashes (600,000 iterations) in the collection database. Once an account exists, \
            the web app asks everyone to log in, also on 127.0.0.1.

            Examples:
              echo 'a long passphrase' | plantguide user add alice             The first account: an owner.
              echo 'another passphrase' | plantguide user add bob              A member.
              echo 'passphrase three' | plantguide user add carol --role owner
              echo 'passphrase four' | plantguide user add dave --household Joneses   Makes the household Joneses.
              plantguide user list --json
              plantguide care due --household Joneses                        Other commands act for a household too.
              echo 'a new passphrase' | plantguide user passwd bob              Also logs bob out everywhere.
              plantguide user set bob --language fr                             Bob's pages in French.
              plantguide user remove bob
            """,
        subcommands: [
            UserAddCommand.self, UserListCommand.self, UserRemoveCommand.self, UserPasswdCommand.self, UserSetCommand.self,
        ]
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
            A household's first account is always its owner; later ones are members unless --role owner is given. \
            --household (else $PLANTGUIDE_HOUSEHOLD) names the household (any letter case); a household that does \
            not exist yet is made by --household, with this account as its owner.

            Examples:
              echo 'a long passphrase' | plantguide user add alice
              printf '%s\\n' "$PASSWORD" | plantguide user add bob --role owner
              echo 'a third passphrase' | plantguide user add dave --household Joneses
            """
    )

    @Argument(help: "The log-in name: 1 to 64 letters, digits, dots, underscores or hyphens.")
    var name: String

    @Option(help: "owner (manages settings and accounts) or member.")
    var role: UserRole = .member

    @Option(help: ArgumentHelp("The household to add the account to; made when missing (default: Home).", valueName: "name"))
    var household: String?

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard UserAccount.isValidName(name) else {
            throw ValidationError("'\(name)' is not a valid name: use 1 to 64 letters, digits, dots, underscores or hyphens.")
        }
        if let household, !Household.isValidName(household) {
            throw ValidationError("'\(household)' is not a valid household name: use 1 to 80 characters, without spaces at either end.")
        }
    }

    func run() async throws {
        // As for the other commands, PLANTGUIDE_HOUSEHOLD names the household when --household does not; only --household
        // makes a new one (a typo in a variable set for everyday use must not make a household).
        let mayMakeHousehold = self.household != nil
        let household = HouseholdOption.chosenName(household, environment: ProcessInfo.processInfo.environment)
        if let household, !Household.isValidName(household) {
            throw ValidationError(
                "\(HouseholdOption.environmentVariable) '\(household)' is not a valid household name: use 1 to 80 characters, "
                    + "without spaces at either end."
            )
        }
        let (account, count) = try await UserCommandSupport.withAccounts("add", database) { accounts, now in
            // Refuse a taken name before asking for the password's 600,000 rounds.
            if try await accounts.user(named: name) != nil { throw StoreError.userExists(name) }
            let hash = try UserCommandSupport.readPasswordHash("add")
            var householdId = HouseholdScope.home.household
            if let household {
                if let existing = try await accounts.household(named: household) {
                    householdId = existing.id
                } else if !mayMakeHousehold {
                    throw HouseholdChoiceError(
                        description: "\(HouseholdOption.environmentVariable) names the household '\(household)', which does not "
                            + "exist; `plantguide user add \(name) --household \(shellQuoted(household))` makes it."
                    )
                } else {
                    do {
                        householdId = try await accounts.createHousehold(named: household, now: now()).id
                    } catch {
                        // Another `user add` (or replica) made it meanwhile: join it.
                        guard let made = try await accounts.household(named: household) else { throw error }
                        householdId = made.id
                    }
                }
            }
            let account = try await accounts.addUser(name: name, role: role, passwordHash: hash, householdId: householdId, now: now())
            return (account, try? await accounts.userCount())
        }
        let console = Console()
        if output.json {
            try console.printJSON(UserSummary(account))
        } else {
            let note = account.role != role ? " (a household's first account is always its owner)" : ""
            let place = household.map { " of the household \($0)" } ?? ""
            console.print("Added \(account.name) as \(account.role.rawValue)\(place)\(note).")
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
            The accounts of every household, by household; --household shows one. --json prints an array of \
            {name, role, household, householdName, createdAt, passwordChangedAt, language, temperatureUnit} (the last \
            two absent while automatic); never a password hash.

            Examples:
              plantguide user list
              plantguide user list --household Joneses --json
            """
    )

    @Option(help: ArgumentHelp("Only this household's accounts.", valueName: "name"))
    var household: String?

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let household = HouseholdOption.chosenName(household, environment: ProcessInfo.processInfo.environment)
        let (accounts, households) = try await UserCommandSupport.withAccounts("list", database) { store, _ in
            let households = try await store.households()
            guard let household else { return (try await store.users(), households) }
            guard let chosen = try await store.household(named: household) else { throw StoreError.householdNotFound(household) }
            return (try await store.users(household: chosen.id), households)
        }
        let names = Dictionary(households.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let console = Console()
        if output.json {
            try console.printJSON(accounts.map { UserSummary($0, householdName: names[$0.householdId]) })
            return
        }
        if accounts.isEmpty, let household {
            console.print("The household \(household) has no accounts. Add one with "
                + "`echo 'a long passphrase' | plantguide user add NAME --household \(shellQuoted(household))`.")
            return
        }
        if accounts.isEmpty {
            console.print("No accounts yet: the web app needs no log-in on 127.0.0.1. Add one with "
                + "`echo 'a long passphrase' | plantguide user add NAME`.")
            return
        }
        let width = accounts.map(\.name.count).max() ?? 0
        let showsHouseholds = households.count > 1
        for (householdId, members) in Dictionary(grouping: accounts, by: \.householdId).sorted(by: { $0.key < $1.key }) {
            if showsHouseholds { console.print(console.style(names[householdId] ?? "household \(householdId)", .bold)) }
            for account in members {
                let padded = account.name.padding(toLength: max(width, 4), withPad: " ", startingAt: 0)
                console.print("\(showsHouseholds ? "  " : "")\(padded)  "
                    + "\(account.role.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  "
                    + "since \(account.createdAt.formatted(.iso8601))")
            }
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

/// `plantguide user set NAME --language CODE --temperature-unit UNIT`.
struct UserSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Choose the language and temperature unit of an account's pages.",
        discussion: """
            The web app writes a member's pages in their language and shows temperatures in their unit, on every \
            device they log in from; they can change both on the Settings page too. auto, each account's start, \
            follows the browser's language and shows °F where the browser's region is the United States, else °C. \
            An option left out stays as it is. Pages not translated yet stay in English.

            Examples:
              plantguide user set alice --language fr
              plantguide user set bob --temperature-unit fahrenheit
              plantguide user set alice --language auto --temperature-unit auto
            """
    )

    @Argument(help: "The account's name (any letter case).")
    var name: String

    @Option(help: ArgumentHelp("en, fr, de or es; auto to follow the browser.", valueName: "code"))
    var language: String?

    @Option(help: ArgumentHelp("celsius or fahrenheit; auto for the region's usual one.", valueName: "unit"))
    var temperatureUnit: String?

    @OptionGroup var output: OutputOptions

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard language != nil || temperatureUnit != nil else {
            throw ValidationError("Say what to set: --language, --temperature-unit, or both.")
        }
        do {
            _ = try PreferenceChoice.updating(MemberPreferences(), language: language, temperatureUnit: temperatureUnit)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let account = try await UserCommandSupport.withAccounts("set", database) { store, _ in
            guard var account = try await store.user(named: name) else { throw StoreError.userNotFound(name) }
            account.preferences = try PreferenceChoice.updating(account.preferences, language: language, temperatureUnit: temperatureUnit)
            try await store.setPreferences(account.preferences, user: account.name, inHousehold: account.householdId)
            return account
        }
        let console = Console()
        if output.json {
            try console.printJSON(UserSummary(account))
        } else {
            console.print("\(account.name): \(PreferenceChoice.summary(account.preferences)).")
        }
    }
}
