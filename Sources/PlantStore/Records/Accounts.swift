import Foundation
import PlantGuideCore

/// What an account may do in its household.
public enum UserRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Manages the household: settings and accounts.
    case owner
    /// Uses the collection.
    case member
}

/// An account of the web app (and of `plantguide user`).
public struct UserAccount: Sendable, Hashable, Codable {
    /// Row id.
    public var id: Int64
    /// The household it belongs to (1, "Home", for every account for now).
    public var householdId: Int64
    /// The log-in name: 1–64 of `A-Z a-z 0-9 . _ -`, unique in any letter case.
    public var name: String
    /// What it may do.
    public var role: UserRole
    /// The stored password hash (`pbkdf2-sha256$…`); never shown.
    public var passwordHash: String
    /// When it was created.
    public var createdAt: Date
    /// When its password was last set.
    public var passwordChangedAt: Date
    /// How the member reads PlantGuide (language, temperature unit); automatic where not chosen.
    public var preferences: MemberPreferences
    /// The language of the member's last web request (a language code), for texts sent while they are away
    /// (reminders) when they chose none.
    public var lastLanguage: String?

    /// Describes an account.
    public init(
        id: Int64, householdId: Int64, name: String, role: UserRole, passwordHash: String, createdAt: Date,
        passwordChangedAt: Date, preferences: MemberPreferences = MemberPreferences(), lastLanguage: String? = nil
    ) {
        self.id = id
        self.householdId = householdId
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.passwordChangedAt = passwordChangedAt
        self.preferences = preferences
        self.lastLanguage = lastLanguage
    }
}

/// How a member reads PlantGuide's web app. `nil` means automatic: the browser's language (`Accept-Language`), and the
/// unit usual in its region.
public struct MemberPreferences: Sendable, Hashable, Codable {
    /// The language of pages and messages, as a lower-case language code (`fr`); `nil` to follow the browser.
    public var language: String?
    /// The unit temperatures are shown in; `nil` for the region's usual one.
    public var temperatureUnit: TemperatureUnit?

    /// Preferences; automatic where `nil`.
    public init(language: String? = nil, temperatureUnit: TemperatureUnit? = nil) {
        self.language = language
        self.temperatureUnit = temperatureUnit
    }

    /// Whether `code` can be stored as a language: 2 or 3 lower-case ASCII letters (an ISO 639 code).
    public static func isValidLanguageCode(_ code: String) -> Bool {
        (2...3).contains(code.utf8.count) && code.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A }
    }
}

/// Who a live log-in belongs to, as read from the database on each request that needs it.
public struct SessionPrincipal: Sendable, Hashable {
    /// The account's row id.
    public var userId: Int64
    /// The account's name.
    public var name: String
    /// The account's role.
    public var role: UserRole
    /// The household of the account.
    public var householdId: Int64
    /// When the log-in ends.
    public var expiresAt: Date
    /// How the account's member reads PlantGuide.
    public var preferences: MemberPreferences
    /// The language of the member's last web request, when noted (``UserAccount/lastLanguage``).
    public var lastLanguage: String?

    /// Describes a log-in's account.
    public init(
        userId: Int64, name: String, role: UserRole, householdId: Int64, expiresAt: Date,
        preferences: MemberPreferences = MemberPreferences(), lastLanguage: String? = nil
    ) {
        self.userId = userId
        self.name = name
        self.role = role
        self.householdId = householdId
        self.expiresAt = expiresAt
        self.preferences = preferences
        self.lastLanguage = lastLanguage
    }
}

/// What a failed log-in is counted against.
public enum LoginFailureScope: String, Sendable, Hashable, CaseIterable {
    /// An account name (lower-cased), whatever address tried it.
    case account
    /// A client address, whatever names it tried.
    case address
}

extension LoginFailureScope {
    /// The subject as failures are stored under it: account names in lower case (names ignore case), at most 128
    /// characters, never empty.
    public func storedSubject(_ subject: String) -> String {
        let text = self == .account ? subject.lowercased() : subject
        let bounded = String(text.prefix(128))
        return bounded.isEmpty ? "-" : bounded
    }
}

extension UserAccount {
    /// Whether `name` is a valid account name: 1–64 of `A-Z a-z 0-9 . _ -`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    /// The clear error for an invalid name.
    public static func invalidName(_ name: String) -> StoreError {
        .invalid("'\(name)' is not a valid account name: use 1 to 64 letters, digits, dots, underscores or hyphens.")
    }
}
