// Builds Sources/PlantCatalog/Resources/houseplants.json from the curated files in Data/catalog, and
// species-directory.json (the on-device model's classes with families and common names) from Data/species,
// the ITIS extract and the model's labels; with --check verifies that the committed resources match a fresh build.
import CatalogBuilding
import Foundation

let usage = """
    usage: plantguide-catalog-build [--check] [--root DIR]

    Builds \(CatalogPaths.resource) from \(CatalogPaths.plants), \(CatalogPaths.genera),
    \(CatalogPaths.exceptions), \(CatalogPaths.configuration) and \(CatalogPaths.grinNames);
    then \(CatalogPaths.speciesResource) from the model's labels, \(CatalogPaths.itisNames),
    \(CatalogPaths.speciesGenera), \(CatalogPaths.speciesFamilies) and the catalog's common names,
    and prints its coverage (family, species-level and any-level English names).

      --check     do not write; exit 1 if a committed resource differs from a fresh build
      --root DIR  package root containing Data/ (default: the current directory)
      --help      show this help
    """

struct Options {
    var check = false
    var root = URL(filePath: FileManager.default.currentDirectoryPath, directoryHint: .isDirectory)
}

enum Outcome: Error {
    case usageError(String)
    case failure(String)
}

func parseOptions(_ arguments: [String]) throws(Outcome) -> Options? {
    var options = Options()
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
        switch argument {
        case "--help", "-h":
            return nil
        case "--check":
            options.check = true
        case "--root":
            guard let directory = remaining.popFirst() else { throw .usageError("--root needs a directory") }
            options.root = URL(filePath: directory, directoryHint: .isDirectory)
        default:
            throw .usageError("unknown argument '\(argument)'")
        }
    }
    return options
}

func summary(of catalog: Catalog) -> String {
    var lines = [
        "entries:    \(catalog.entries.count)",
        "families:   \(catalog.families.count)",
        "genera:     \(catalog.genera.count)",
        "exceptions: \(catalog.exceptions.count)",
    ]
    let counts = catalog.countsByCategory
    for category in CatalogCategory.allCases {
        lines.append("  \(category.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)) \(counts[category] ?? 0)")
    }
    return lines.joined(separator: "\n")
}

func run(_ options: Options) throws(Outcome) {
    let builder = CatalogBuilder(sourcesDirectory: options.root)
    let catalog: Catalog
    let species: BuiltSpeciesDirectory
    let resource: Data
    let speciesResource: Data
    do {
        catalog = try builder.load()
        resource = try CatalogBuilder.resource(for: catalog)
        species = try SpeciesDirectoryBuilder(sourcesDirectory: options.root).load(catalog: catalog)
        speciesResource = try SpeciesDirectoryBuilder.resource(for: species)
    } catch {
        throw .failure(error.description)
    }
    try emit(resource, to: CatalogPaths.resource, options: options)
    print(summary(of: catalog))
    try emit(speciesResource, to: CatalogPaths.speciesResource, options: options)
    print(species.coverage.lines.joined(separator: "\n"))
    if !species.familyDisagreements.isEmpty {
        print("families differing from ITIS/USDA (curated APG IV / PPG I kept): \(species.familyDisagreements.count)")
        for item in species.familyDisagreements {
            print("  \(item.genus): \(item.curated) (\(item.source): \(item.theirs))")
        }
    }
}

func emit(_ data: Data, to path: String, options: Options) throws(Outcome) {
    let output = options.root.appending(path: path)
    if options.check {
        let committed = try? Data(contentsOf: output)
        guard committed == data else {
            throw .failure("\(path) is out of date; run plantguide-catalog-build and commit the result")
        }
        print("\(path) is up to date")
    } else {
        do {
            try data.write(to: output, options: .atomic)
        } catch {
            throw .failure("cannot write \(path): \(error.localizedDescription)")
        }
        print("wrote \(path)")
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("plantguide-catalog-build: \(message)\n".utf8))
}

do {
    if let options = try parseOptions(Array(CommandLine.arguments.dropFirst())) {
        try run(options)
    } else {
        print(usage)
    }
} catch {
    switch error {
    case let .usageError(message):
        printError("\(message)\n\(usage)")
        exit(2)
    case let .failure(message):
        printError(message)
        exit(1)
    }
}
