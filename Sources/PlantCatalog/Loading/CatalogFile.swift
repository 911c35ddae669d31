import Foundation
import PlantGuideCore

/// The bundled resource as stored: `{"source_date", "total_plants", "sources", "plants": [...], "synonyms": [...]}`.
enum CatalogFile {
    /// Reads and checks a catalog file; every problem names the file and what is wrong. `synonyms` is optional (files
    /// made before it existed); a synonym of a plant the file lacks is an error.
    static func load(from url: URL) throws(CatalogError) -> (sourceDate: String, plants: [CatalogPlant], synonyms: [PlantSynonym]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError.resourceUnreadable(path: url.path, reason: error.localizedDescription)
        }
        func fail(_ reason: String) -> CatalogError {
            CatalogError.resourceUnreadable(path: url.path, reason: reason)
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(Array(data))
        } catch {
            throw fail("not a catalog JSON file (\(error))")
        }
        guard let sourceDate = document["source_date"]?.string,
              let total = document["total_plants"]?.number,
              let entries = document["plants"]?.array else {
            throw fail("not a catalog JSON file (source_date, total_plants or plants missing)")
        }
        guard Int(total) == entries.count else {
            throw fail("total_plants says \(Int(total)) but \(entries.count) plants are listed")
        }
        var plants: [CatalogPlant] = []
        plants.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() {
            guard let name = entry["scientific_name"]?.string, let family = entry["family"]?.string,
                  let categoryName = entry["category"]?.string,
                  let commonNames = entry["common_names"]?.array?.compactMap(\.string) else {
                throw fail("plant \(position + 1) lacks scientific_name, common_names, family or category")
            }
            guard let category = PlantCategory(rawValue: categoryName) else {
                throw fail("unknown category '\(categoryName)' for \(name)")
            }
            plants.append(CatalogPlant(scientificName: name, commonNames: commonNames, family: family, category: category))
        }
        var synonyms: [PlantSynonym] = []
        var position: [String: Int] = [:]
        for (index, plant) in plants.enumerated() { position[plant.scientificName] = index }
        for (number, entry) in (document["synonyms"]?.array ?? []).enumerated() {
            guard let name = entry["name"]?.string, let accepted = entry["accepted"]?.string,
                  let kind = entry["kind"]?.string.flatMap(PlantSynonym.Kind.init(rawValue:)), let source = entry["source"]?.string else {
                throw fail("synonym \(number + 1) lacks name, accepted, kind (former or trade) or source")
            }
            guard let index = position[accepted] else { throw fail("synonym \(name) names \(accepted), which is not in the catalog") }
            plants[index].formerNames.append(name)
            synonyms.append(PlantSynonym(name: name, accepted: accepted, kind: kind, source: source))
        }
        return (sourceDate, plants, synonyms)
    }
}

enum CatalogResource {
    static let fileName = "houseplants.json"
    static let bundleName = "PlantGuide_PlantCatalog.resources"

    /// Finds the bundled catalog without `Bundle.module`, whose accessor stops the process when the
    /// bundle is missing; a broken installation must be an error a person can read instead.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CatalogError) -> URL {
        if let override = environment["PLANTGUIDE_CATALOG"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var candidates: [URL] = []
        #if canImport(Darwin)
        if let url = Bundle.main.url(forResource: bundleName.replacingOccurrences(of: ".resources", with: ""), withExtension: "bundle") {
            candidates.append(url.appendingPathComponent(fileName))
            candidates.append(url.appendingPathComponent("Contents/Resources/\(fileName)"))
        }
        #endif
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            folders.append(executable.deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        if let resources = Bundle.main.resourceURL { folders.append(resources) }
        for folder in folders {
            candidates.append(folder.appendingPathComponent(bundleName).appendingPathComponent(fileName))
            candidates.append(folder.appendingPathComponent("\(bundleName.replacingOccurrences(of: ".resources", with: ".bundle"))/\(fileName)"))
        }
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0.path) }) {
            return found
        }
        throw CatalogError.resourceMissing(searched: Array(Set(folders.map(\.path))).sorted())
    }
}
