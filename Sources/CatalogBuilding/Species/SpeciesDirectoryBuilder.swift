import Foundation

/// Builds the species directory: one record per output class of the PlantNet-300K model (1,081 classes), with
/// the accepted binomial, genus, family (APG IV / PPG I, for every class) and common names.
///
/// Names come from, in order of preference: the catalog's own common names (where the species is in the
/// catalog), ITIS species-level names (English, French, Spanish, Portuguese), and the curated genus-level
/// English name of `Data/species/genera.tsv`, marked as genus-level. Families come from the curated genus
/// table; ITIS and USDA families, mapped through `Data/species/families.tsv`, are cross-checks whose
/// disagreements are counted in the build summary. The output depends only on the inputs.
public struct SpeciesDirectoryBuilder: Sendable {
    /// The directory that contains `Data/` (the package root).
    public let sourcesDirectory: URL

    /// Creates a builder reading from `sourcesDirectory`.
    public init(sourcesDirectory: URL) {
        self.sourcesDirectory = sourcesDirectory
    }

    /// Reads every input and assembles the directory; `catalog` supplies the catalog's own common names.
    public func load(catalog: Catalog) throws(CatalogBuildError) -> BuiltSpeciesDirectory {
        let labels = try loadLabels()
        let families = try loadFamilySynonyms()
        let genera = try loadGenera()
        let itis = try ITISNames(text: read(CatalogPaths.itisNames), path: CatalogPaths.itisNames)
        let usda = try loadUSDAFamilies()

        let labelGenera = Set(labels.map(\.genus))
        if let missing = labelGenera.sorted().first(where: { genera[$0] == nil }) {
            throw .unknownGenus(missing, CatalogLocation(file: CatalogPaths.speciesGenera))
        }
        if let unused = genera.values.sorted(by: { $0.name < $1.name }).first(where: { !labelGenera.contains($0.name) }) {
            throw .unusedGenus(unused.name, unused.location)
        }

        var catalogNames: [String: [String]] = [:]
        for entry in catalog.entries where entry.name.cultivar == nil && entry.name.infraspecific == nil {
            guard let epithet = entry.name.epithet, !entry.commonNames.isEmpty else { continue }
            catalogNames[SpeciesKey.make(genus: entry.name.genus, epithet: epithet), default: []] += entry.commonNames
        }

        var disagreements: [FamilyDisagreement] = []
        for genus in genera.values.sorted(by: { $0.name < $1.name }) {
            var others: [String: String] = [:]
            if let family = itis.family(ofGenus: genus.name) { others["ITIS"] = families[family] ?? family }
            if let family = usda[genus.name] { others["USDA"] = families[family] ?? family }
            for (source, family) in others.sorted(by: { $0.key < $1.key }) where family != genus.family {
                disagreements.append(FamilyDisagreement(genus: genus.name, curated: genus.family, source: source, theirs: family))
            }
        }

        let classes = labels.map { label -> SpeciesClass in
            let genus = genera[label.genus]!  // checked above: every label genus has a row
            let accepted = itis.acceptedName(of: label.key)
            var names = itis.names(of: label.key, accepted: accepted?.key)
            let english: [String]
            let source: String?
            if let fromCatalog = catalogNames[label.key] {
                english = Self.merge(fromCatalog, names["en"] ?? [])
                source = "catalog"
            } else if let fromITIS = names["en"], !fromITIS.isEmpty {
                english = fromITIS
                source = "itis"
            } else {
                english = genus.commonName.map { [$0] } ?? []
                source = english.isEmpty ? nil : "plantguide-genus"
            }
            names["en"] = english.isEmpty ? nil : english
            return SpeciesClass(
                index: label.index, speciesId: label.speciesId, scientificName: label.fullName,
                authorship: label.authorship, binomial: label.binomial,
                acceptedBinomial: accepted?.display ?? label.binomial, genus: label.genus, family: genus.family,
                commonNames: names, commonNameLevel: source == nil ? nil : (source == "plantguide-genus" ? "genus" : "species"),
                commonNameSource: source, genusCommonName: genus.commonName, genusNameReference: genus.reference
            )
        }
        return BuiltSpeciesDirectory(classes: classes, familyDisagreements: disagreements)
    }

    /// Encodes a directory as the bundled resource: pretty-printed JSON with sorted keys and a trailing newline.
    public static func resource(for directory: BuiltSpeciesDirectory) throws(CatalogBuildError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(SpeciesDirectoryFile(directory))
            data.append(0x0A)
            return data
        } catch {
            throw .invalidConfiguration(CatalogLocation(file: CatalogPaths.speciesResource), reason: "cannot encode: \(error)")
        }
    }

    private static func merge(_ first: [String], _ second: [String]) -> [String] {
        var seen: Set<String> = []
        return (first + second).filter { seen.insert($0.lowercased()).inserted }
    }

    // MARK: - Inputs

    private func read(_ path: String) throws(CatalogBuildError) -> String {
        do {
            return try String(contentsOf: sourcesDirectory.appending(path: path), encoding: .utf8)
        } catch {
            throw .unreadableFile(CatalogLocation(file: path), reason: error.localizedDescription)
        }
    }

    private func loadLabels() throws(CatalogBuildError) -> [ModelLabel] {
        func decode(_ path: String) throws(CatalogBuildError) -> [String: String] {
            do {
                return try JSONDecoder().decode([String: String].self, from: Data(read(path).utf8))
            } catch let error as CatalogBuildError {
                throw error
            } catch {
                throw .malformedRow(CatalogLocation(file: path), reason: "not a JSON object of strings (\(error))")
            }
        }
        let classes = try decode(CatalogPaths.classSpeciesIds)
        let names = try decode(CatalogPaths.speciesNames)
        var labels: [ModelLabel] = []
        for index in 0..<classes.count {
            guard let speciesId = classes[String(index)], let name = names[speciesId] else {
                throw .malformedRow(CatalogLocation(file: CatalogPaths.classSpeciesIds),
                                    reason: "class \(index) has no species id or no name")
            }
            guard let label = ModelLabel(index: index, speciesId: speciesId, fullName: name) else {
                throw .malformedRow(CatalogLocation(file: CatalogPaths.speciesNames), reason: "'\(name)' is not a binomial")
            }
            labels.append(label)
        }
        return labels
    }

    private func loadFamilySynonyms() throws(CatalogBuildError) -> [String: String] {
        let path = CatalogPaths.speciesFamilies
        let file = try TabSeparatedFile(contents: read(path), path: path, header: ["outdated", "current", "note"], comments: true)
        var map: [String: String] = [:]
        for row in file.rows {
            guard row[0].isGenusWord, row[1].isGenusWord, row[0].hasSuffix("aceae"), row[1].hasSuffix("aceae") else {
                throw .malformedRow(row.location, reason: "both families must be single -aceae names")
            }
            guard !row[2].isEmpty else { throw .malformedRow(row.location, reason: "the note saying why is empty") }
            guard map[row[0]] == nil else { throw .duplicateEntry(row[0], row.location, firstSeen: row.location) }
            map[row[0]] = row[1]
        }
        return map
    }

    private func loadGenera() throws(CatalogBuildError) -> [String: SpeciesGenus] {
        let path = CatalogPaths.speciesGenera
        let file = try TabSeparatedFile(
            contents: read(path), path: path, header: ["genus", "family", "commonName", "reference"], comments: true
        )
        var genera: [String: SpeciesGenus] = [:]
        for row in file.rows {
            guard row[0].isGenusWord else { throw .malformedRow(row.location, reason: "'\(row[0])' is not a genus name") }
            guard row[1].isGenusWord, row[1].hasSuffix("aceae") else {
                throw .malformedRow(row.location, reason: "family '\(row[1])' is not an APG IV / PPG I family name (-aceae)")
            }
            if let first = genera[row[0]] { throw .duplicateEntry(row[0], row.location, firstSeen: first.location) }
            genera[row[0]] = SpeciesGenus(
                name: row[0], family: row[1], commonName: row[2].isEmpty ? nil : row[2],
                reference: row[3].isEmpty ? nil : row[3], location: row.location
            )
        }
        return genera
    }

    private func loadUSDAFamilies() throws(CatalogBuildError) -> [String: String] {
        var families: [String: String] = [:]
        for line in try read(CatalogPaths.usdaFamilies).split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",", maxSplits: 1)
            guard fields.count == 2, let family = fields[1].split(separator: " ").first else { continue }
            families[String(fields[0])] = String(family)
        }
        return families
    }
}

/// A family given by ITIS or USDA (after mapping outdated names) that differs from the curated one.
public struct FamilyDisagreement: Sendable, Hashable {
    public let genus: String
    public let curated: String
    public let source: String
    public let theirs: String
}

/// The built directory, before encoding.
public struct BuiltSpeciesDirectory: Sendable {
    /// One record per model class, in class order.
    public let classes: [SpeciesClass]
    /// Genera whose curated family differs from ITIS's or USDA's (mapped through families.tsv).
    public let familyDisagreements: [FamilyDisagreement]

    /// Coverage of the directory, for the build summary and its test.
    public var coverage: SpeciesCoverage {
        let binomials = Dictionary(grouping: classes, by: { $0.binomial })
        func share(_ included: (SpeciesClass) -> Bool) -> (classes: Int, binomials: Int) {
            (classes.filter(included).count, binomials.values.filter { included($0[0]) }.count)
        }
        let family = share { !$0.family.isEmpty }
        let species = share { $0.commonNameLevel == "species" }
        let any = share { $0.commonNameLevel != nil }
        let other = Dictionary(uniqueKeysWithValues: ["fr", "es", "pt"].map { language in
            (language, classes.filter { !($0.commonNames[language] ?? []).isEmpty }.count)
        })
        return SpeciesCoverage(
            classes: classes.count, binomials: binomials.count, genera: Set(classes.map(\.genus)).count,
            withFamily: family.classes, speciesLevelEnglish: species.classes,
            speciesLevelEnglishBinomials: species.binomials, anyEnglish: any.classes, anyEnglishBinomials: any.binomials,
            fromCatalog: classes.filter { $0.commonNameSource == "catalog" }.count, otherLanguages: other
        )
    }
}

/// How much of the model's classes the directory names.
public struct SpeciesCoverage: Sendable, Hashable {
    public let classes: Int
    public let binomials: Int
    public let genera: Int
    public let withFamily: Int
    /// Classes with a species-level English name (catalog or ITIS).
    public let speciesLevelEnglish: Int
    public let speciesLevelEnglishBinomials: Int
    /// Classes with a species- or genus-level English name.
    public let anyEnglish: Int
    public let anyEnglishBinomials: Int
    /// Classes whose English names start with the catalog's.
    public let fromCatalog: Int
    /// Classes with at least one name per other language (fr, es, pt).
    public let otherLanguages: [String: Int]

    /// The summary lines the builder prints.
    public var lines: [String] {
        func percent(_ count: Int, of total: Int) -> String {
            String(format: "%d/%d (%.1f %%)", count, total, total == 0 ? 0 : Double(count) * 100 / Double(total))
        }
        return [
            "classes:             \(classes) (\(binomials) binomials, \(genera) genera)",
            "family:              \(percent(withFamily, of: classes))",
            "English, species:    \(percent(speciesLevelEnglish, of: classes)) classes; \(percent(speciesLevelEnglishBinomials, of: binomials)) binomials",
            "English, any level:  \(percent(anyEnglish, of: classes)) classes; \(percent(anyEnglishBinomials, of: binomials)) binomials",
            "names from catalog:  \(fromCatalog) classes",
            "French/Spanish/Portuguese: " + ["fr", "es", "pt"].map { "\(otherLanguages[$0] ?? 0)" }.joined(separator: "/") + " classes",
        ]
    }
}

/// One class of the model, as written to the resource.
public struct SpeciesClass: Sendable, Hashable {
    public let index: Int
    public let speciesId: String
    /// As the label file gives it, with authorship.
    public let scientificName: String
    public let authorship: String?
    /// Genus and epithet, with `×` for hybrids.
    public let binomial: String
    /// The accepted binomial (ITIS), the same as `binomial` when it is accepted or unknown to ITIS.
    public let acceptedBinomial: String
    public let genus: String
    public let family: String
    /// Names per language code (`en`, `fr`, `es`, `pt`).
    public let commonNames: [String: [String]]
    /// `species` or `genus` (English names); `nil` when there is none.
    public let commonNameLevel: String?
    /// `catalog`, `itis` or `plantguide-genus`.
    public let commonNameSource: String?
    public let genusCommonName: String?
    public let genusNameReference: String?
}

// MARK: - Parsing helpers

/// A class of the model's label files.
struct ModelLabel {
    let index: Int
    let speciesId: String
    let fullName: String
    let genus: String
    let epithet: String
    let isHybrid: Bool
    let authorship: String?

    init?(index: Int, speciesId: String, fullName: String) {
        var words = fullName.split(separator: " ").map(String.init)[...]
        guard let genus = words.popFirst(), genus.isGenusWord else { return nil }
        var hybrid = false
        // PlantNet-300K writes the hybrid sign as a plain `x` ("Freesia x hybrida"); others write `×`.
        if let sign = words.first, sign == "×" || sign == "x" {
            hybrid = true
            words = words.dropFirst()
        }
        guard let epithet = words.popFirst(), epithet.first?.isLowercase == true else { return nil }
        self.index = index
        self.speciesId = speciesId
        self.fullName = fullName
        self.genus = genus
        self.epithet = epithet
        self.isHybrid = hybrid
        self.authorship = words.isEmpty ? nil : words.joined(separator: " ")
    }

    var binomial: String { isHybrid ? "\(genus) × \(epithet)" : "\(genus) \(epithet)" }
    var key: String { SpeciesKey.make(genus: genus, epithet: epithet) }
}

/// The join key of species across sources: lower-case genus and epithet, hybrid sign dropped.
enum SpeciesKey {
    static func make(genus: String, epithet: String) -> String {
        "\(genus.lowercased()) \(epithet.lowercased())"
    }
}

/// A row of the curated genus table.
struct SpeciesGenus {
    let name: String
    let family: String
    let commonName: String?
    let reference: String?
    let location: CatalogLocation
}

/// The ITIS extract: species-rank rows with a name, status, accepted genus/epithet, family and one common name.
struct ITISNames {
    struct Row {
        let key: String
        let accepted: Bool
        let acceptedKey: String
        let acceptedDisplay: String
        let family: String
        let genus: String
        let name: String
        let language: String?
    }

    private let rows: [Row]
    private let byKey: [String: [Int]]
    private let byAcceptedKey: [String: [Int]]
    private let familyByGenus: [String: String]

    private static let languages = ["English": "en", "French": "fr", "Spanish": "es", "Portuguese": "pt"]

    init(text: String, path: String) throws(CatalogBuildError) {
        let header = ["scientificName", "taxonRank", "taxonomicStatus", "acceptedNameUsageID", "taxonID", "family", "genus",
                      "specificEpithet", "infraspecificEpithet", "vernacularName", "language"]
        let file = try TabSeparatedFile(contents: text, path: path, header: header)
        var rows: [Row] = []
        var byKey: [String: [Int]] = [:], byAcceptedKey: [String: [Int]] = [:], families: [String: String] = [:]
        for row in file.rows {
            let words = row[0].split(separator: " ").filter { $0 != "X" && $0 != "x" && $0 != "×" }
            guard words.count >= 2 else { continue }
            let acceptedHybrid = row[7] == "X"
            let acceptedEpithet = acceptedHybrid ? row[8] : row[7]
            guard !acceptedEpithet.isEmpty else { continue }
            let entry = Row(
                key: SpeciesKey.make(genus: String(words[0]), epithet: String(words[1])), accepted: row[2] == "accepted",
                acceptedKey: SpeciesKey.make(genus: row[6], epithet: acceptedEpithet),
                acceptedDisplay: acceptedHybrid ? "\(row[6]) × \(acceptedEpithet)" : "\(row[6]) \(acceptedEpithet)",
                family: row[5], genus: row[6], name: row[9], language: Self.languages[row[10]]
            )
            byKey[entry.key, default: []].append(rows.count)
            byAcceptedKey[entry.acceptedKey, default: []].append(rows.count)
            if families[entry.genus] == nil, !entry.family.isEmpty { families[entry.genus] = entry.family }
            rows.append(entry)
        }
        self.rows = rows
        self.byKey = byKey
        self.byAcceptedKey = byAcceptedKey
        familyByGenus = families
    }

    /// The family ITIS gives a genus (of an accepted name).
    func family(ofGenus genus: String) -> String? { familyByGenus[genus] }

    /// The accepted name of `key` when ITIS lists it only as a synonym.
    func acceptedName(of key: String) -> (key: String, display: String)? {
        let matches = (byKey[key] ?? []).map { rows[$0] }
        guard !matches.isEmpty, !matches.contains(where: \.accepted), let first = matches.first, first.acceptedKey != key else {
            return nil
        }
        return (first.acceptedKey, first.acceptedDisplay)
    }

    /// Common names per language code: those of the accepted taxon first, then any listed under the name itself.
    func names(of key: String, accepted: String?) -> [String: [String]] {
        let indices = (byAcceptedKey[accepted ?? key] ?? []) + (byKey[key] ?? [])
        var names: [String: [String]] = [:]
        var seen: Set<String> = []
        for row in indices.map({ rows[$0] }) {
            guard let language = row.language, seen.insert("\(language):\(row.name.lowercased())").inserted else { continue }
            names[language, default: []].append(row.name)
        }
        return names
    }
}

/// The resource's JSON shape.
struct SpeciesDirectoryFile: Encodable {
    let classes: [Record]
    let sources: [String]
    let coverage: [String: Int]

    struct Record: Encodable {
        let index: Int
        let speciesId: String
        let scientificName: String
        let authorship: String?
        let binomial: String
        let acceptedBinomial: String
        let genus: String
        let family: String
        let commonNames: [String: [String]]
        let commonNameLevel: String?
        let commonNameSource: String?
        let genusCommonName: String?
        let genusNameReference: String?

        // Optional keys are written as null so every record has the same keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(speciesId, forKey: .speciesId)
            try container.encode(scientificName, forKey: .scientificName)
            try container.encode(authorship, forKey: .authorship)
            try container.encode(binomial, forKey: .binomial)
            try container.encode(acceptedBinomial, forKey: .acceptedBinomial)
            try container.encode(genus, forKey: .genus)
            try container.encode(family, forKey: .family)
            try container.encode(commonNames, forKey: .commonNames)
            try container.encode(commonNameLevel, forKey: .commonNameLevel)
            try container.encode(commonNameSource, forKey: .commonNameSource)
            try container.encode(genusCommonName, forKey: .genusCommonName)
            try container.encode(genusNameReference, forKey: .genusNameReference)
        }

        enum CodingKeys: String, CodingKey {
            case index, speciesId, scientificName, authorship, binomial, acceptedBinomial, genus, family, commonNames
            case commonNameLevel, commonNameSource, genusCommonName, genusNameReference
        }
    }

    init(_ directory: BuiltSpeciesDirectory) {
        classes = directory.classes.map {
            Record(index: $0.index, speciesId: $0.speciesId, scientificName: $0.scientificName, authorship: $0.authorship,
                   binomial: $0.binomial, acceptedBinomial: $0.acceptedBinomial, genus: $0.genus, family: $0.family,
                   commonNames: $0.commonNames, commonNameLevel: $0.commonNameLevel, commonNameSource: $0.commonNameSource,
                   genusCommonName: $0.genusCommonName, genusNameReference: $0.genusNameReference)
        }
        sources = [
            "PlantNet-300K v1 class labels (Garcin et al., NeurIPS 2021; github.com/plantnet/PlantNet-300K)",
            "ITIS common names, retrieved 2022-12-20 from the Integrated Taxonomic Information System (ITIS) on-line database, http://www.itis.gov",
            "USDA NRCS PLANTS genus-to-family table (cross-check)",
            "PlantGuide authors: genus-level English names and APG IV / PPG I families (Data/species/genera.tsv)",
            "PlantGuide catalog common names (Data/catalog/plants.tsv)",
        ]
        let coverage = directory.coverage
        self.coverage = [
            "classes": coverage.classes, "binomials": coverage.binomials, "genera": coverage.genera,
            "withFamily": coverage.withFamily, "speciesLevelEnglish": coverage.speciesLevelEnglish,
            "anyEnglish": coverage.anyEnglish,
        ]
    }
}
