import Foundation
import PlantGuideCore

/// The bundled resource as stored: `{"source_date", "total_plants", "sources", "plants": [...]}`.
enum CatalogFile {
    /// Reads and checks a catalog file; every problem names the file and what is wrong.
    static func load(from url: URL) throws(CatalogError) -> (sourceDate: String, plants: [CatalogPlant]) {
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
        return (sourceDate, plants)
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
