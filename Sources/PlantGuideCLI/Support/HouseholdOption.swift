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
        // The command's name: the first word that is neither an option nor the value of `--household`.
        var firstPositional: String?
        var skipsValue = false
        for argument in arguments {
            if skipsValue { skipsValue = false; continue }
            if argument == "--household" { skipsValue = true; continue }
            if !argument.hasPrefix("-") { firstPositional = argument; break }
        }
        guard firstPositional != "user" else { return (arguments, nil) }
        var kept: [String] = []
        var household: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                kept.append(contentsOf: arguments[index...])
                break
            }
            if argument == "--household", index + 1 < arguments.endIndex {
                household = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--household=") {
                household = String(argument.dropFirst("--household=".count))
                index += 1
                continue
            }
            kept.append(argument)
            index += 1
        }
        return (kept, household)
    }

    /// The household named by `option`, else by `PLANTGUIDE_HOUSEHOLD`; `nil` when neither names one.
    static func chosenName(_ option: String?, environment: [String: String]) -> String? {
        let chosen = option ?? environment[environmentVariable]
        guard let chosen, !chosen.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return chosen
    }

    /// The scope of the household with this name in the data directory's database.
    /// - Throws: ``StoreError/householdNotFound(_:)`` naming the households there are.
    static func scope(named name: String, directory: DataDirectory) async throws -> HouseholdScope {
        let database: any AccountStore = try CollectionDatabase.open(in: directory)
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
