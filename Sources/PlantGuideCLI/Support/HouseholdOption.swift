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

    /// The command line without the options every command takes, `--household NAME` and `--database URL` (also as
    /// `--option=VALUE`, anywhere before `--`; the last one given wins), and their values. `plantguide user` takes both
    /// as its own options and `plantguide serve` takes `--database`: for them these options stay, moved after the
    /// command's name when they came before it.
    /// - Throws: `ValidationError` when one of them is the last argument, without its value.
    static func extractGlobalOptions(from arguments: [String]) throws -> (arguments: [String], household: String?, database: String?) {
        let options = ["--household", "--database"]
        func option(of argument: String) -> String? {
            options.first { argument == $0 || argument.hasPrefix($0 + "=") }
        }
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        // The command's name: the first word that is neither an option nor one of these options' values.
        var commandIndex: Int?
        var index = arguments.startIndex
        while index < end {
            if options.contains(arguments[index]) {
                index += 2
                continue
            }
            if !arguments[index].hasPrefix("-") {
                commandIndex = index
                break
            }
            index += 1
        }
        let command = commandIndex.map { arguments[$0] }
        let owned: Set<String> = command == "user" ? Set(options) : command == "serve" ? ["--database"] : []
        var kept: [String] = [], moved: [String] = []
        var values: [String: String] = [:]
        index = arguments.startIndex
        while index < end {
            let argument = arguments[index]
            guard let name = option(of: argument) else {
                kept.append(argument)
                index += 1
                continue
            }
            let pair: [String]
            let value: String
            if argument == name {
                guard index + 1 < end else {
                    throw ValidationError("\(name) needs a value, e.g. \(name) \(name == "--database" ? "postgres://USER@HOST/DATABASE" : "Home").")
                }
                value = arguments[index + 1]
                pair = [argument, value]
                index += 2
            } else {
                value = String(argument.dropFirst(name.count + 1))
                pair = [argument]
                index += 1
            }
            if owned.contains(name) {
                if let commandIndex, index <= commandIndex { moved += pair } else { kept += pair }
            } else {
                values[name] = value
            }
        }
        return (kept + moved + arguments[end...], values["--household"], values["--database"])
    }

    /// The household named by `option`, else by `PLANTGUIDE_HOUSEHOLD`; `nil` when neither names one.
    static func chosenName(_ option: String?, environment: [String: String]) -> String? {
        let chosen = option ?? environment[environmentVariable]
        guard let chosen, !chosen.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return chosen
    }

    /// The scope of the household with this name in the database chosen for the run.
    /// - Throws: ``StoreError/householdNotFound(_:)`` naming the households there are.
    static func scope(named name: String, in context: CommandContext) async throws -> HouseholdScope {
        let database = try context.open()
        guard let household = try await database.household(named: name) else {
            let known = try await database.households().map { "'\($0.name)'" }.joined(separator: ", ")
            throw HouseholdChoiceError(
                description: "\(StoreError.householdNotFound(name).description) The households are: \(known)."
            )
        }
        return HouseholdScope(household: household.id)
    }
}

extension PlantsStore {
    /// How many plants the household with this id has (the store's count, in that household's scope).
    func plantCount(ofHousehold household: Int64) async throws -> Int {
        try await HouseholdScope.$current.withValue(HouseholdScope(household: household)) { try await plantCount() }
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
