import Foundation
import PlantGuideCore

/// The bundled resource as stored: `{"source_date", "total_plants", "sources", "plants": [...]}`.
struct CatalogFile: Decodable {
    struct Plant: Decodable {
        var scientific_name: String
        var common_names: [String]
        var family: String
        var category: String
    }

    var source_date: String
    var total_plants: Int
    var plants: [Plant]

    /// Decodes and checks a catalog file; every problem names the file and what is wrong.
    static func load(from url: URL) throws(CatalogError) -> (sourceDate: String, plants: [CatalogPlant]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError.resourceUnreadable(path: url.path, reason: error.localizedDescription)
        }
        let file: CatalogFile
        do {
            file = try JSONDecoder().decode(CatalogFile.self, from: data)
        } catch {
            throw CatalogError.resourceUnreadable(path: url.path, reason: "not a catalog JSON file (\(error))")
        }
        guard file.total_plants == file.plants.count else {
            throw CatalogError.resourceUnreadable(
                path: url.path,
                reason: "total_plants says \(file.total_plants) but \(file.plants.count) plants are listed"
            )
        }
        var plants: [CatalogPlant] = []
        for plant in file.plants {
            guard let category = PlantCategory(rawValue: plant.category) else {
                throw CatalogError.resourceUnreadable(
                    path: url.path, reason: "unknown category '\(plant.category)' for \(plant.scientific_name)"
                )
            }
            plants.append(CatalogPlant(
                scientificName: plant.scientific_name, commonNames: plant.common_names,
                family: plant.family, category: category
            ))
        }
        return (file.source_date, plants)
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
