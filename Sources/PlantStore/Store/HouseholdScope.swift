import Foundation

/// The household (and the account, when one is known) that collection operations act for.
///
/// Every plant, photo link, care event, identification, re-check and identification run belongs to one household, and
/// every ``CollectionStore`` operation reads and writes only the rows of the household in scope. The scope is the
/// task-local ``current`` when one is set (the web app sets the logged-in account's for each request), else the
/// store's default scope (household 1 for the command line, which may choose another with `--household`).
///
/// A store without a default scope (``PlantGuideStore/scoped(to:)`` with `nil`, as the web app opens it) fails closed:
/// an operation run outside any scope throws ``StoreError/noHousehold(operation:)`` instead of reading some household's
/// rows.
public struct HouseholdScope: Sendable, Hashable, CustomStringConvertible {
    /// The household's row id.
    public var household: Int64
    /// The account acting, when there is one (the command line acts as nobody in particular).
    public var user: Int64?
    /// That account's name, which care events and identifications record as who did them.
    public var userName: String?

    /// A scope for a household, optionally naming the account that acts.
    public init(household: Int64, user: Int64? = nil, userName: String? = nil) {
        self.household = household
        self.user = user
        self.userName = userName
    }

    /// Household 1 (`Home`), which every collection had before households existed, acting as nobody in particular.
    public static let home = HouseholdScope(household: 1)

    /// The scope the current task acts in, if one was set with `HouseholdScope.$current.withValue(_:operation:)`.
    @TaskLocal public static var current: HouseholdScope?

    public var description: String {
        userName.map { "household \(household), account \($0)" } ?? "household \(household)"
    }

    /// The scope in force: the task's, else the store's default; throws when there is neither.
    public static func resolve(default fallback: HouseholdScope?, operation: String) throws(StoreError) -> HouseholdScope {
        if let current { return current }
        if let fallback { return fallback }
        throw .noHousehold(operation: operation)
    }
}
