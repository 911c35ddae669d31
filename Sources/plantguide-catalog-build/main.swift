// Builds Sources/PlantCatalog/Resources/houseplants.json from the curated files in Data/catalog,
// or with --check verifies that the committed resource matches a fresh build.
import CatalogBuilding
import Foundation

let usage = """
    usage: plantguide-catalog-build [--check] [--root DIR]

    Builds \(CatalogPaths.resource) from \(CatalogPaths.plants), \(CatalogPaths.genera),
    \(CatalogPaths.exceptions), \(CatalogPaths.configuration) and \(CatalogPaths.grinNames).

      --check     do not write; exit 1 if the committed resource differs from a fresh build
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
    let resource: Data
    do {
        catalog = try builder.load()
        resource = try CatalogBuilder.resource(for: catalog)
    } catch {
        throw .failure(error.description)
    }
    let output = options.root.appending(path: CatalogPaths.resource)
    if options.check {
        let committed = try? Data(contentsOf: output)
        guard committed == resource else {
            throw .failure("\(CatalogPaths.resource) is out of date; run plantguide-catalog-build and commit the result")
        }
        print("\(CatalogPaths.resource) is up to date")
    } else {
        do {
            try resource.write(to: output, options: .atomic)
        } catch {
            throw .failure("cannot write \(CatalogPaths.resource): \(error.localizedDescription)")
        }
        print("wrote \(CatalogPaths.resource)")
    }
    print(summary(of: catalog))
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
