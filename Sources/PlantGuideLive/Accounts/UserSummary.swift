import Foundation
import PlantGuideCore
import PlantStore

/// One account as `GET /api/users` and `plantguide user list --json` show it: never its password hash.
public struct UserSummary: Encodable, Sendable {
    /// The log-in name.
    public var name: String
    /// `owner` or `member`.
    public var role: String
    /// The household's id.
    public var household: Int64
    /// The household's name, when it was read with the account.
    public var householdName: String?
    /// When the account was made.
    public var createdAt: Date
    /// When its password was last set.
    public var passwordChangedAt: Date
    /// The language the member chose for their pages (`fr`); absent to follow the browser.
    public var language: String?
    /// The unit the member chose for temperatures; absent for the region's usual one.
    public var temperatureUnit: TemperatureUnit?

    /// The summary of an account, with its household's name when known.
    public init(_ account: UserAccount, householdName: String? = nil) {
        name = account.name
        role = account.role.rawValue
        household = account.householdId
        self.householdName = householdName
        createdAt = account.createdAt
        passwordChangedAt = account.passwordChangedAt
        language = account.preferences.language
        temperatureUnit = account.preferences.temperatureUnit
    }
}
