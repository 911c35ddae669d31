import Foundation

/// Reads the curated catalog files, validates them against GRIN and each other, and produces the bundled
/// `houseplants.json` resource. The output depends only on the input files, so the same inputs always give
/// byte-identical output.
public struct CatalogBuilder: Sendable {
    /// The directory that contains `Data/` (the package root).
    public let sourcesDirectory: URL

    public init(sourcesDirectory: URL) {
        self.sourcesDirectory = sourcesDirectory
    }

    /// Reads and validates every input file.
    public func load() throws(CatalogBuildError) -> Catalog {
        let configuration = try loadConfiguration()
        let grinNames = try loadGRINNames()
        let genera = try loadGenera()
        let exceptions = try loadExceptions(grinNames: grinNames)
        let entries = try loadEntries(genera: genera, grinNames: grinNames, exceptions: exceptions)
        let synonyms = try loadSynonyms(entries: entries)

        let usedBinomials = Set(entries.compactMap(\.name.grinKey))
        if let unused = exceptions.first(where: { !usedBinomials.contains($0.name.grinKey ?? "") }) {
            throw .unusedException(unused.name.text, unused.location)
        }
        let usedGenera = Set(entries.map(\.name.genus))
        let sortedGenera = genera.values.sorted { $0.name < $1.name }
        if let unused = sortedGenera.first(where: { !usedGenera.contains($0.name) }) {
            throw .unusedGenus(unused.name, unused.location)
        }
        return Catalog(
            configuration: configuration,
            genera: sortedGenera,
            entries: entries.sorted { $0.name < $1.name },
            exceptions: exceptions,
            synonyms: synonyms
        )
    }

    /// Builds the resource: pretty-printed JSON with sorted keys and a trailing newline.
    public func build() throws(CatalogBuildError) -> Data {
        try Self.resource(for: load())
    }

    /// Encodes an already loaded catalog as the resource.
    public static func resource(for catalog: Catalog) throws(CatalogBuildError) -> Data {
        let file = ResourceFile(
            sourceDate: catalog.configuration.sourceDate,
            totalPlants: catalog.entries.count,
            sources: catalog.configuration.sources,
            plants: catalog.entries.map(ResourcePlant.init),
            synonyms: catalog.synonyms.map(ResourceSynonym.init)
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(file)
            data.append(0x0A)
            return data
        } catch {
            throw .invalidConfiguration(CatalogLocation(file: CatalogPaths.resource),
                                        reason: "cannot encode the resource: \(error)")
        }
    }

    // MARK: - Reading the inputs

    private func read(_ path: String) throws(CatalogBuildError) -> String {
        let url = sourcesDirectory.appending(path: path)
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .unreadableFile(CatalogLocation(file: path), reason: error.localizedDescription)
        }
    }

    private func loadConfiguration() throws(CatalogBuildError) -> CatalogConfiguration {
        let path = CatalogPaths.configuration
        let location = CatalogLocation(file: path)
        let configuration: CatalogConfiguration
        do {
            configuration = try JSONDecoder().decode(CatalogConfiguration.self, from: Data(read(path).utf8))
        } catch let error as CatalogBuildError {
            throw error
        } catch {
            throw .invalidConfiguration(location, reason: "\(error)")
        }
        guard configuration.sourceDate.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil else {
            throw .invalidConfiguration(location, reason: "source_date must be YYYY-MM-DD")
        }
        guard !configuration.sources.isEmpty else {
            throw .invalidConfiguration(location, reason: "sources must not be empty")
        }
        for source in configuration.sources
        where [source.name, source.url, source.licence, source.use].contains(where: \.isEmpty) {
            throw .invalidConfiguration(location, reason: "source '\(source.name)' has an empty field")
        }
        return configuration
    }

    private func loadGRINNames() throws(CatalogBuildError) -> Set<String> {
        // The GRIN dump has CRLF line endings; `isNewline` treats "\r\n" as one separator.
        let names = try read(CatalogPaths.grinNames).split(whereSeparator: \.isNewline)
        return Set(names.map { String($0.trimmingSpaces) })
    }

    private func loadGenera() throws(CatalogBuildError) -> [String: CatalogGenus] {
        let path = CatalogPaths.genera
        let file = try TabSeparatedFile(contents: read(path), path: path,
                                        header: ["genus", "family", "category", "rule"])
        var genera: [String: CatalogGenus] = [:]
        for row in file.rows {
            let name = row[0], family = row[1]
            guard name.isGenusWord else {
                throw .malformedRow(row.location, reason: "'\(name)' is not a genus name")
            }
            guard family.isGenusWord, family.hasSuffix("aceae") else {
                throw .malformedRow(row.location, reason: "family '\(family)' is not an APG family name (-aceae)")
            }
            guard let category = CatalogCategory(rawValue: row[2]) else {
                throw .unknownCategory(row[2], row.location)
            }
            guard !row[3].isEmpty else {
                throw .malformedRow(row.location, reason: "the rule explaining the category is empty")
            }
            if let first = genera[name] {
                throw .duplicateEntry(name, row.location, firstSeen: first.location)
            }
            genera[name] = CatalogGenus(name: name, family: family, category: category, rule: row[3],
                                        location: row.location)
        }
        return genera
    }

    private func loadExceptions(grinNames: Set<String>) throws(CatalogBuildError) -> [CatalogException] {
        let path = CatalogPaths.exceptions
        let file = try TabSeparatedFile(contents: read(path), path: path, header: ["scientific_name", "reason"])
        var seen: [String: CatalogLocation] = [:]
        var exceptions: [CatalogException] = []
        for row in file.rows {
            let name = try parseName(row[0], at: row.location)
            guard let key = name.grinKey, name.cultivar == nil, name.infraspecific == nil else {
                throw .malformedRow(row.location, reason: "an exception is a binomial, without rank or cultivar")
            }
            guard !row[1].isEmpty else {
                throw .malformedRow(row.location, reason: "the reason for the exception is empty")
            }
            if let first = seen[name.identityKey] {
                throw .duplicateEntry(name.text, row.location, firstSeen: first)
            }
            guard !grinNames.contains(key) else {
                throw .staleException(name.text, row.location)
            }
            seen[name.identityKey] = row.location
            exceptions.append(CatalogException(name: name, reason: row[1], location: row.location))
        }
        return exceptions
    }

    private func loadEntries(
        genera: [String: CatalogGenus],
        grinNames: Set<String>,
        exceptions: [CatalogException]
    ) throws(CatalogBuildError) -> [CatalogEntry] {
        let path = CatalogPaths.plants
        let file = try TabSeparatedFile(contents: read(path), path: path,
                                        header: ["scientific_name", "common_names", "category"])
        let excepted = Set(exceptions.compactMap(\.name.grinKey))
        var seen: [String: CatalogLocation] = [:]
        var entries: [CatalogEntry] = []
        for row in file.rows {
            let name = try parseName(row[0], at: row.location)
            guard let genus = genera[name.genus] else {
                throw .unknownGenus(name.genus, row.location)
            }
            if let key = name.grinKey, !grinNames.contains(key), !excepted.contains(key) {
                throw .unknownBinomial(name.binomial ?? key, row.location)
            }
            if let first = seen[name.identityKey] {
                throw .duplicateEntry(name.text, row.location, firstSeen: first)
            }
            seen[name.identityKey] = row.location
            var category = genus.category
            if !row[2].isEmpty {
                guard let override = CatalogCategory(rawValue: row[2]) else {
                    throw .unknownCategory(row[2], row.location)
                }
                // An override that repeats the default would hide a later change of the genus default.
                guard override != genus.category else {
                    throw .malformedRow(row.location, reason: "category '\(row[2])' is already the default of "
                        + "\(genus.name); leave it empty")
                }
                category = override
            }
            entries.append(CatalogEntry(
                name: name,
                commonNames: try parseCommonNames(row[1], at: row.location),
                family: genus.family,
                category: category,
                overridesGenusCategory: !row[2].isEmpty,
                location: row.location
            ))
        }
        return entries
    }

    /// Former and trade names: each names a catalog entry, is not itself one, and says where the move is published.
    private func loadSynonyms(entries: [CatalogEntry]) throws(CatalogBuildError) -> [CatalogSynonym] {
        let path = CatalogPaths.synonyms
        let file = try TabSeparatedFile(contents: read(path), path: path, header: ["name", "accepted", "kind", "source"])
        var byIdentity: [String: CatalogEntry] = [:]
        for entry in entries { byIdentity[entry.name.identityKey] = entry }
        var seen: [String: CatalogLocation] = [:]
        var synonyms: [CatalogSynonym] = []
        for row in file.rows {
            let name = try parseName(row[0], at: row.location)
            let accepted = try parseName(row[1], at: row.location)
            if let entry = byIdentity[name.identityKey] {
                throw .malformedRow(row.location, reason: "'\(name.text)' is a catalog entry itself (\(entry.location)), not a synonym")
            }
            guard let entry = byIdentity[accepted.identityKey] else {
                throw .malformedRow(row.location, reason: "'\(accepted.text)' is not a catalog entry; a synonym must name one")
            }
            guard let kind = CatalogSynonym.Kind(rawValue: row[2]) else {
                throw .malformedRow(row.location, reason: "kind '\(row[2])' is not one of: "
                    + CatalogSynonym.Kind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard !row[3].isEmpty else {
                throw .malformedRow(row.location, reason: "the source of the synonym is empty")
            }
            if let first = seen[name.identityKey] {
                throw .duplicateEntry(name.text, row.location, firstSeen: first)
            }
            seen[name.identityKey] = row.location
            synonyms.append(CatalogSynonym(name: name, accepted: entry.scientificName, kind: kind, source: row[3], location: row.location))
        }
        return synonyms.sorted { $0.name < $1.name }
    }

    private func parseName(_ text: String, at location: CatalogLocation) throws(CatalogBuildError) -> ScientificName {
        switch ScientificName.parse(text) {
        case let .success(name):
            return name
        case let .failure(error):
            throw .malformedRow(location, reason: "'\(text)': \(error.reason)")
        }
    }

    private func parseCommonNames(_ text: String, at location: CatalogLocation) throws(CatalogBuildError) -> [String] {
        guard !text.isEmpty else { return [] }
        let names = text.components(separatedBy: "; ")
        var seen: Set<String> = []
        for name in names {
            guard !name.isEmpty, name == name.trimmingCharacters(in: .whitespaces), !name.contains(";") else {
                throw .malformedRow(location, reason: "common names are separated by '; ' and must not be empty")
            }
            guard seen.insert(name.lowercased()).inserted else {
                throw .malformedRow(location, reason: "common name '\(name)' is listed twice")
            }
        }
        return names
    }
}
