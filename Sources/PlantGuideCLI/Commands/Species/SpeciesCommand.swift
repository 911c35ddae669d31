import ArgumentParser
import Foundation
import PlantCatalog
import PlantGuideCore
import PlantStore

/// `plantguide species`: what PlantGuide knows about a species.
struct SpeciesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "species",
        abstract: "Look up what PlantGuide knows about one species.",
        subcommands: [SpeciesShowCommand.self]
    )
}

/// `plantguide species show NAME`: the directory entry, learned names, catalog entry, care and related plants.
struct SpeciesShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show everything known about one species, and where each name came from.",
        discussion: """
            NAME may be a scientific name (authorship optional), a common name in any language PlantGuide \
            knows, or either with a typo. It is looked up among the on-device model's 1,081 classes, the \
            houseplant catalog and the names Pl@ntNet has taught this installation.

            Each common name says where it came from: the catalog, ITIS (species level), PlantGuide's genus \
            table (genus level: a name for the whole genus) or Pl@ntNet (with the date of the answer).

            Examples:
              plantguide species show "Sedum album"
              plantguide species show "white clover"
              plantguide species show alocasia cucullata --json
              plantguide species show "monstera delicosa"      Typos are forgiven.
            """
    )

    @Argument(help: "The species: a scientific or common name.")
    var name: [String]

    @OptionGroup var output: OutputOptions

    func validate() throws {
        let text = name.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw ValidationError("Name a species, e.g. plantguide species show \"Sedum album\".") }
        guard text.count <= 200 else { throw ValidationError("A species name is at most 200 characters.") }
    }

    func run(in context: CommandContext) async throws {
        let console = Console()
        let query = name.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        let catalog = PlantCatalog()
        let directory = SpeciesDirectory()
        // Names learned from Pl@ntNet, when there is a collection; looking a species up never creates one.
        let learned = (try? context.existing()) ?? nil
        let guide = try? CareGuide.bundled()
        guard let report = try await SpeciesReport.find(query, catalog: catalog, directory: directory, learned: learned, guide: guide)
        else {
            console.warn("No species matches \"\(query)\". Try `plantguide search \(shellQuoted(query))` for the houseplant catalog.")
            throw ExitCode(1)
        }
        if output.json {
            try console.printJSON(report)
        } else {
            report.print(console: console)
        }
    }
}

/// Everything known about one species, as `species show` prints it.
struct SpeciesReport: Encodable {
    /// One common name and where it came from.
    struct Name: Encodable {
        var name: String
        var language: String
        var level: CommonNameLevel
        /// `catalog`, `itis`, `plantguide-genus` or `plantnet`.
        var source: String
        var learnedAt: Date?
        var reference: String?
    }

    /// One output class of the model.
    struct ModelClass: Encodable {
        var index: Int
        var speciesId: String
        var scientificName: String
    }

    var query: String
    var scientificName: String
    var authorship: String?
    var acceptedName: String?
    var genus: String
    var family: String?
    var names: [Name]
    var modelClasses: [ModelClass]
    var gbifId: String?
    var powoId: String?
    var catalogEntry: CatalogPlant?
    /// The catalog entry's former and trade names, each with the publication of the move.
    var formerNames: [PlantSynonym]
    var care: CareProfile?
    var careSummary: String?
    var relatedCatalogPlants: [CatalogPlant]

    /// Finds the species: an exact name among the model's classes or the catalog first, then typos in either.
    static func find(
        _ query: String, catalog: PlantCatalog, directory: SpeciesDirectory, learned: (any PlantGuideStore)?, guide: CareGuide?
    ) async throws -> SpeciesReport? {
        let exactCatalog = try catalog.plant(named: query)
            ?? catalog.search(query, limit: 1).first.flatMap { $0.match.kind == .exact ? $0.plant : nil }
        var entries: [SpeciesEntry] = try directory.entries(named: query)
        if entries.isEmpty, exactCatalog == nil, let found = try directory.find(query) {
            entries = try directory.entries(named: found.binomial)
        }
        var catalogPlant = exactCatalog
        if catalogPlant == nil, let entry = entries.first {
            catalogPlant = try catalog.plant(named: entry.binomial) ?? catalog.plant(named: entry.acceptedBinomial)
        }
        if catalogPlant == nil, entries.isEmpty { catalogPlant = try catalog.search(query, limit: 1).first?.plant }
        let learnedName = entries.first?.binomial ?? catalogPlant?.scientificName ?? query
        let learnedRecords = ((try? await learned?.learnedSpecies(named: [learnedName])) ?? nil)?[learnedName] ?? []
        guard !entries.isEmpty || catalogPlant != nil || !learnedRecords.isEmpty else { return nil }

        let binomial = entries.first?.binomial ?? catalogPlant.map { ScientificName(parsing: $0.scientificName).binomial }
            ?? learnedRecords[0].binomial
        let genus = entries.first?.genus ?? ScientificName(parsing: binomial).genus
        var names: [Name] = []
        if let catalogPlant {
            names += catalogPlant.commonNames.map { Name(name: $0, language: "en", level: .species, source: "catalog") }
        }
        if let entry = entries.first {
            for (language, list) in entry.commonNames.sorted(by: { $0.key < $1.key }) {
                let isGenus = language == "en" && entry.commonNameLevel == .genus
                let source = language == "en" ? (entry.commonNameSource ?? "itis") : "itis"
                for name in list where !(source == "catalog" && catalogPlant?.commonNames.contains(name) == true) {
                    names.append(Name(name: name, language: language, level: isGenus ? .genus : .species,
                                      source: source == "catalog" ? "itis" : source,
                                      reference: isGenus ? entry.genusNameReference : nil))
                }
            }
            if entry.commonNameLevel == .species, let genusName = entry.genusCommonName {
                names.append(Name(name: genusName, language: "en", level: .genus, source: "plantguide-genus",
                                  reference: entry.genusNameReference))
            }
        } else if let genusInfo = try directory.genus(genus), let genusName = genusInfo.commonName {
            names.append(Name(name: genusName, language: "en", level: .genus, source: "plantguide-genus"))
        }
        for record in learnedRecords {
            names += record.commonNames.map {
                Name(name: $0, language: record.language, level: .species, source: "plantnet", learnedAt: record.learnedAt)
            }
        }
        let related = try catalog.plants(genus: genus).filter { $0.scientificName != catalogPlant?.scientificName }
        let care = catalogPlant.flatMap { plant in guide?.profile(for: plant, name: plant.scientificName) }
        let genusFamily = try directory.genus(genus)?.family
        let family = entries.first?.family ?? catalogPlant?.family ?? learnedRecords.first?.family ?? genusFamily
        let accepted = entries.first.flatMap { $0.acceptedBinomial != $0.binomial ? $0.acceptedBinomial : nil }
        return SpeciesReport(
            query: query, scientificName: binomial, authorship: entries.first?.authorship, acceptedName: accepted,
            genus: genus, family: family, names: names,
            modelClasses: entries.map { ModelClass(index: $0.index, speciesId: $0.speciesId, scientificName: $0.scientificName) },
            gbifId: learnedRecords.first(where: { $0.gbifId != nil })?.gbifId,
            powoId: learnedRecords.first(where: { $0.powoId != nil })?.powoId,
            catalogEntry: catalogPlant, formerNames: try catalogPlant.map { try catalog.synonyms(of: $0.scientificName) } ?? [],
            care: care, careSummary: care?.summary, relatedCatalogPlants: Array(related.prefix(12))
        )
    }

    func print(console: Console) {
        // The name the person typed, when it is one of the species' names; else the first English one.
        let title = names.first(where: { $0.level == .species && $0.name.caseInsensitiveCompare(query) == .orderedSame })?.name
            ?? names.first(where: { $0.level == .species && $0.language == "en" })?.name
        console.print(console.style(scientificName, .bold) + (authorship.map { " " + $0 } ?? "")
            + (title.map { " — " + HybridIdentify.capitalised($0) } ?? ""))
        var facts = ["genus \(genus)"]
        if let family { facts.append("family \(family)") }
        if let acceptedName { facts.append("accepted name \(acceptedName)") }
        console.print("  " + facts.joined(separator: " · "))
        if modelClasses.isEmpty {
            console.print("  " + console.style("Not among the on-device model's 1,081 classes: only Pl@ntNet can name it from a photo.", .dim))
        } else {
            let list = modelClasses.map { "class \($0.index) (Pl@ntNet species \($0.speciesId))" }.joined(separator: ", ")
            console.print("  On-device model: \(list)")
        }
        if !names.isEmpty {
            console.print("  Common names:")
            for name in names {
                var source = switch name.source {
                case "catalog": "PlantGuide catalog"
                case "itis": "ITIS"
                case "plantguide-genus": "PlantGuide genus table"
                case "plantnet": "Pl@ntNet"
                default: name.source
                }
                if name.level == .genus { source += ", genus level" }
                if let date = name.learnedAt { source += ", learned \(QuotaText.format(date).prefix(10))" }
                if let reference = name.reference { source += "; \(reference)" }
                console.print("    \(name.language)  \(name.name)  " + console.style("(\(source))", .dim))
            }
        }
        if let gbifId { console.print("  GBIF: https://www.gbif.org/species/\(gbifId)") }
        if let powoId { console.print("  POWO: \(powoId)") }
        if let catalogEntry {
            console.print("  In the catalog: \(catalogEntry.scientificName) (\(catalogEntry.category.rawValue))")
            for synonym in formerNames {
                let label = synonym.kind == .former ? "Formerly" : "Sold as"
                console.print("  \(label) \(synonym.name)  " + console.style("(\(synonym.source))", .dim))
            }
            if let careSummary { console.print("  Care: \(careSummary)") }
            if let care { console.print("  " + console.style("Pet safety from: \(care.toxicitySource)", .dim)) }
        }
        if !relatedCatalogPlants.isEmpty {
            console.print(catalogEntry == nil ? "  Related plants in the catalog:" : "  More of the genus in the catalog:")
            for plant in relatedCatalogPlants.prefix(8) { console.print("  " + console.plantLine(plant)) }
        }
    }
}
