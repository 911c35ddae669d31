import ArgumentParser
import Foundation
import PlantGuideCore
import PlantStore

/// `--household NAME` (or `PLANTGUIDE_HOUSEHOLD`): which household a command that uses the collection acts for. Every
/// such command takes it, so it is read before the command's own options; without it, commands act for household 1
/// (`Home`), the one every collection had before there were several.
///
/// `plantguide user` has its own `--household` (the household an account is added to or listed from) and is left alone.
enum HouseholdOption {
    /// The environment variable that names the household when `--household` is not given.
    static let environmentVariable = "PLANTGUIDE_HOUSEHOLD"

    /// The arguments without `--household NAME` / `--household=NAME`, and the name given (the last one wins). Arguments
    /// after `--` and those of `plantguide user` are kept as they are.
    static func extract(from arguments: [String]) -> (arguments: [String], household: String?) {
        let (kept, value) = extractOption("--household", from: arguments, unlessCommandIs: ["user"])
        return (kept, value)
    }

    /// The arguments without `option VALUE` / `option=VALUE`, and the value given (the last one wins). Arguments after
    /// `--`, and all of them when the command (the first word that is neither an option nor its value) is one of
    /// `commands`, which take the option themselves, are kept as they are.
    static func extractOption(
        _ option: String, from arguments: [String], unlessCommandIs commands: Set<String>
    ) -> (arguments: [String], value: String?) {
        var firstPositional: String?
        var skipsValue = false
        for argument in arguments {
            if skipsValue { skipsValue = false; continue }
            if argument == option { skipsValue = true; continue }
            if !argument.hasPrefix("-") { firstPositional = argument; break }
        }
        if let firstPositional, commands.contains(firstPositional) { return (arguments, nil) }
        var kept: [String] = []
        var value: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                kept.append(contentsOf: arguments[index...])
                break
            }
            if argument == option, index + 1 < arguments.endIndex {
                value = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix(option + "=") {
                value = String(argument.dropFirst(option.count + 1))
                index += 1
                continue
            }
            kept.append(argument)
            index += 1
        }
        return (kept, value)
    }

    /// The household named by `option`, else by `PLANTGUIDE_HOUSEHOLD`; `nil` when neither names one.
    static func chosenName(_ option: String?, environment: [String: String]) -> String? {
        let chosen = option ?? environment[environmentVariable]
        guard let chosen, !chosen.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return chosen
    }

    /// The scope of the household with this name in the database chosen for the run (``CommandDatabase``).
    /// - Throws: ``StoreError/householdNotFound(_:)`` naming the households there are.
    static func scope(named name: String, directory: DataDirectory) async throws -> HouseholdScope {
        let database: any AccountStore = try CommandDatabase.open(in: directory)
        guard let household = try await database.household(named: name) else {
            let known = try await database.households().map { "'\($0.name)'" }.joined(separator: ", ")
            throw HouseholdChoiceError(
                description: "\(StoreError.householdNotFound(name).description) The households are: \(known)."
            )
        }
        return HouseholdScope(household: household.id)
    }
}

/// `--household` given to a command that does not use the collection, or naming no household.
struct HouseholdChoiceError: Error, CustomStringConvertible {
    let description: String
}

/// The commands that use the database but serve every household alike: the Pl@ntNet key, quota and cache, the names
/// learned from Pl@ntNet, and a backup of the whole database. `--household` given to them is refused rather than
/// silently ignored.
protocol ServesEveryHousehold {
    /// What the command works on, for the refusal: "the Pl@ntNet quota".
    static var installationWidePart: String { get }
}

extension QuotaCommand: ServesEveryHousehold { static let installationWidePart = "the Pl@ntNet quota" }
extension CacheClearCommand: ServesEveryHousehold { static let installationWidePart = "the Pl@ntNet answer cache" }
extension CacheStatsCommand: ServesEveryHousehold { static let installationWidePart = "the Pl@ntNet answer cache" }
extension SetAPIKeyCommand: ServesEveryHousehold { static let installationWidePart = "the Pl@ntNet API key" }
extension RemoveAPIKeyCommand: ServesEveryHousehold { static let installationWidePart = "the Pl@ntNet API key" }
extension SpeciesShowCommand: ServesEveryHousehold { static let installationWidePart = "the species directory and the names learned from Pl@ntNet" }
extension BackupCommand: ServesEveryHousehold { static let installationWidePart = "a copy of the whole database, every household's records" }
