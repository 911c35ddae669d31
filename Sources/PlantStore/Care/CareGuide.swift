import Foundation
import PlantGuideCore

/// PlantGuide's own care guide: advice per genus, with a default for each catalog category so that
/// every catalog plant (and any free-text plant) gets a profile.
///
/// The table is `Resources/care-guide.tsv`, written and reviewed by the PlantGuide authors.
public struct CareGuide: Sendable {
    /// Profiles by lower-cased genus.
    public let genera: [String: CareProfile]
    /// One profile per catalog category.
    public let categoryDefaults: [PlantCategory: CareProfile]

    /// The bundled care guide.
    public static func bundled() throws(StoreError) -> CareGuide {
        let url = try locateResource()
        guard let data = try? Data(contentsOf: url) else { throw .careGuide("cannot read \(url.path)") }
        return try CareGuide(tsv: String(decoding: data, as: UTF8.self))
    }

    /// Finds the resource without `Bundle.module`, whose accessor stops the process when the bundle
    /// is missing; a broken installation must be an error a person can read instead.
    private static func locateResource() throws(StoreError) -> URL {
        let fileName = "care-guide.tsv", bundleName = "PlantGuide_PlantStore"
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            folders.append(executable.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        if let resources = Bundle.main.resourceURL { folders.append(resources) }
        var candidates: [URL] = []
        for folder in folders {
            candidates.append(folder.appendingPathComponent("\(bundleName).resources/\(fileName)"))
            candidates.append(folder.appendingPathComponent("\(bundleName).bundle/\(fileName)"))
            candidates.append(folder.appendingPathComponent("\(bundleName).bundle/Contents/Resources/\(fileName)"))
        }
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0.path) }) else {
            throw .careGuide("\(fileName) was not found next to the program (looked in \(Set(folders.map(\.path)).sorted()))")
        }
        return found
    }

    /// Parses a care guide table (tab-separated, `#` comments, a header line).
    public init(tsv: String) throws(StoreError) {
        var genera: [String: CareProfile] = [:]
        var categories: [PlantCategory: CareProfile] = [:]
        var header: [String]?
        for (number, line) in tsv.split(whereSeparator: \.isNewline).enumerated() {
            if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let columns = header else {
                header = fields
                continue
            }
            guard fields.count == columns.count else {
                throw .careGuide("line \(number + 1) has \(fields.count) fields, expected \(columns.count)")
            }
            let row = Dictionary(uniqueKeysWithValues: zip(columns, fields))
            let kind = row["kind"] ?? "", name = row["name"] ?? ""
            let basis = "\(kind) \(name)"
            let profile = try Self.profile(from: row, basis: basis, line: number + 1)
            switch kind {
            case "category":
                guard let category = PlantCategory(rawValue: name) else {
                    throw .careGuide("line \(number + 1): unknown category '\(name)'")
                }
                categories[category] = profile
            case "genus":
                guard genera.updateValue(profile, forKey: name.lowercased()) == nil else {
                    throw .careGuide("line \(number + 1): genus \(name) is listed twice")
                }
            default:
                throw .careGuide("line \(number + 1): kind must be 'category' or 'genus', not '\(kind)'")
            }
        }
        let missing = PlantCategory.allCases.filter { categories[$0] == nil }
        guard missing.isEmpty else {
            throw .careGuide("no default for \(missing.map(\.rawValue).joined(separator: ", "))")
        }
        self.genera = genera
        self.categoryDefaults = categories
    }

    /// The profile for a plant: its genus' entry if the guide has one, else its category's default,
    /// else the Tropical Foliage default (the commonest kind of houseplant).
    public func profile(genus: String?, category: PlantCategory?) -> CareProfile {
        if let genus, let profile = genera[genus.lowercased()] { return profile }
        if let category, let profile = categoryDefaults[category] { return profile }
        var fallback = categoryDefaults[.tropicalFoliage] ?? Self.lastResort
        fallback.basis = "general default"
        return fallback
    }

    /// The profile for a catalog plant, or for a free-text name (by its first word as genus).
    public func profile(for plant: CatalogPlant?, name: String) -> CareProfile {
        if let plant { return profile(genus: plant.name.genus, category: plant.category) }
        return profile(genus: ScientificName(parsing: name).genus, category: nil)
    }

    /// Used when a plant has no stored profile (never expected; the schema's writers always add one).
    static let fallbackProfile = lastResort

    private static let lastResort = CareProfile(
        light: .brightIndirect, waterGrowingDays: 7, waterWinterDays: 14, fertilizeGrowingDays: 30, mistDays: nil,
        repotDays: 730, pruneDays: nil, humidity: .medium, minTemperature: 16, maxTemperature: 29,
        toxicToCats: true, toxicToDogs: true, toxicitySource: "not verified; treated as toxic to be safe",
        basis: "general default"
    )

    private static func profile(from row: [String: String], basis: String, line: Int) throws(StoreError) -> CareProfile {
        func text(_ key: String) throws(StoreError) -> String {
            guard let value = row[key], !value.isEmpty else { throw .careGuide("line \(line): \(key) is empty") }
            return value
        }
        func days(_ key: String) throws(StoreError) -> Int? {
            let value = try text(key)
            if value == "-" { return nil }
            guard let number = Int(value), (1...3650).contains(number) else {
                throw .careGuide("line \(line): \(key) '\(value)' is not a number of days")
            }
            return number
        }
        func required(_ key: String) throws(StoreError) -> Int {
            guard let value = try days(key) else { throw .careGuide("line \(line): \(key) is required") }
            return value
        }
        func int(_ key: String) throws(StoreError) -> Int {
            guard let value = Int(try text(key)) else { throw .careGuide("line \(line): \(key) is not a number") }
            return value
        }
        func verdict(_ key: String) throws(StoreError) -> Bool? {
            switch try text(key) {
            case "yes": return true
            case "no": return false
            case "unknown": return nil
            case let other: throw .careGuide("line \(line): \(key) must be yes, no or unknown, not '\(other)'")
            }
        }
        guard let light = LightLevel(rawValue: try text("light")) else { throw .careGuide("line \(line): unknown light") }
        guard let humidity = HumidityLevel(rawValue: try text("humidity")) else {
            throw .careGuide("line \(line): unknown humidity")
        }
        // Toxicity is yes, no or unknown for cats and dogs. A known value names the reference it was checked against;
        // an unknown one is stored as toxic, to be safe, with a source that says it was not verified, so that every
        // wording says "unknown" (`CareProfile.toxicityIsKnown`): never "not toxic" on a claim nobody checked.
        let source = try text("toxicity_source")
        let unverified = source.lowercased().contains("not verified")
        let cats = try verdict("toxic_cats"), dogs = try verdict("toxic_dogs")
        switch (cats, dogs) {
        case (nil, nil):
            guard unverified else {
                throw .careGuide("line \(line): toxicity is unknown, so its source must say 'not verified' ('\(source)')")
            }
        case (nil, _), (_, nil):
            throw .careGuide("line \(line): toxicity is unknown for one animal only; say unknown for both or for neither")
        case (false, _) where unverified, (_, false) where unverified:
            throw .careGuide("line \(line): says not toxic, but its source says the claim was not verified ('\(source)')")
        case _ where unverified:
            throw .careGuide("line \(line): says toxic, but its source says the claim was not verified: say unknown")
        default:
            break
        }
        let toxicToCats = cats ?? true, toxicToDogs = dogs ?? true
        return CareProfile(
            light: light, waterGrowingDays: try required("water_growing_days"),
            waterWinterDays: try required("water_winter_days"), fertilizeGrowingDays: try days("fertilize_days"),
            mistDays: try days("mist_days"), repotDays: try days("repot_days"), pruneDays: try days("prune_days"),
            humidity: humidity, minTemperature: try int("temp_min_c"), maxTemperature: try int("temp_max_c"),
            toxicToCats: toxicToCats, toxicToDogs: toxicToDogs, toxicitySource: source, basis: basis
        )
    }
}
