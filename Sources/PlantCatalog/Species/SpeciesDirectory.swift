import Foundation
import PlantGuideCore
import Synchronization

/// One class of the on-device model (PlantNet-300K) with what PlantGuide knows about it.
public struct SpeciesEntry: Sendable, Hashable, Codable {
    /// The model's output index.
    public var index: Int
    /// Pl@ntNet's species id.
    public var speciesId: String
    /// The name as the model's label file gives it, with authorship.
    public var scientificName: String
    /// Authorship, e.g. `L.`.
    public var authorship: String?
    /// Genus and epithet, with `×` for hybrids.
    public var binomial: String
    /// The accepted binomial (ITIS); the same as ``binomial`` when that is accepted or unknown.
    public var acceptedBinomial: String
    /// The genus.
    public var genus: String
    /// APG IV / PPG I family.
    public var family: String
    /// Common names per language code (`en`, `fr`, `es`, `pt`).
    public var commonNames: [String: [String]]
    /// Whether the English names are of the species or only of its genus; `nil` when there is none.
    public var commonNameLevel: CommonNameLevel?
    /// Where the English names come from: `catalog`, `itis` or `plantguide-genus`.
    public var commonNameSource: String?
    /// The genus-level English name, e.g. `stonecrop`.
    public var genusCommonName: String?
    /// Where the genus-level name was checked, when it was.
    public var genusNameReference: String?

    /// Species-level names in `language` (genus-level English names excluded).
    public func speciesNames(language: String) -> [String] {
        if language == "en" || commonNames[language] == nil {
            return commonNameLevel == .species ? commonNames["en"] ?? [] : []
        }
        return commonNames[language] ?? []
    }
}

/// The species directory: the on-device model's 1,081 classes with their families and common names, bundled
/// as `species-directory.json` (built by `plantguide-catalog-build` from the model's labels, ITIS, the catalog
/// and PlantGuide's genus table). Read on first use, once; safe to share between tasks.
public final class SpeciesDirectory: Sendable {
    private let source: URL?
    private let state = Mutex<Result<Index, CatalogError>?>(nil)

    /// The bundled directory (or the file named by `PLANTGUIDE_SPECIES_DIRECTORY`).
    public init() {
        source = nil
    }

    /// A directory read from a file in the bundled format.
    public init(contentsOf url: URL) {
        source = url
    }

    /// Loads the directory now if it is not loaded yet.
    public func load() throws(CatalogError) {
        _ = try index()
    }

    /// Every class, in class order.
    public func entries() throws(CatalogError) -> [SpeciesEntry] {
        try index().entries
    }

    /// The class with this output index.
    public func entry(classIndex: Int) throws(CatalogError) -> SpeciesEntry? {
        let entries = try index().entries
        return entries.indices.contains(classIndex) ? entries[classIndex] : nil
    }

    /// The classes of a species, by its name (authorship, case and hybrid signs ignored), also when the name is
    /// the accepted name of a class listed under a synonym. Several classes can share one binomial.
    public func entries(named name: String) throws(CatalogError) -> [SpeciesEntry] {
        let index = try index()
        let key = LearnedSpecies.key(for: name)
        return (index.byKey[key] ?? index.byAcceptedKey[key] ?? []).map { index.entries[$0] }
    }

    /// The family and genus-level English name of a genus the model knows.
    public func genus(_ name: String) throws(CatalogError) -> (family: String, commonName: String?)? {
        let index = try index()
        return index.byGenus[name.lowercased()].map { index.entries[$0] }.map { ($0.family, $0.genusCommonName) }
    }

    /// The species a person most likely means by `query`: a scientific name (with or without authorship), a common
    /// name in any language, or either with a typo (up to the search's edit allowance per word). `nil` when
    /// nothing is close.
    public func find(_ query: String) throws(CatalogError) -> SpeciesEntry? {
        let index = try index()
        let folded = TextFolding.fold(query)
        guard !folded.isEmpty, folded.count <= 200 else { return nil }
        if let exact = index.byKey[LearnedSpecies.key(for: query)]?.first { return index.entries[exact] }
        if let exact = index.byFoldedName[folded]?.first { return index.entries[exact] }
        // A typo: the closest name within the allowance for its length, whole names compared.
        let limit = EditDistance.allowance(forLength: folded.count)
        guard limit > 0 else { return nil }
        var distance = EditDistance(pattern: folded, limit: limit)
        var best: (entry: Int, edits: Int)?
        for (name, entries) in index.namesInOrder {
            guard abs(name.count - folded.count) <= limit, let edits = distance.compare(with: name).full else { continue }
            if best == nil || edits < best!.edits { best = (entries[0], edits) }
        }
        return best.map { index.entries[$0.entry] }
    }

    private struct Index: Sendable {
        var entries: [SpeciesEntry]
        var byKey: [String: [Int]] = [:]
        var byAcceptedKey: [String: [Int]] = [:]
        var byGenus: [String: Int] = [:]
        var byFoldedName: [[UInt8]: [Int]] = [:]
        var namesInOrder: [([UInt8], [Int])] = []

        init(entries: [SpeciesEntry]) {
            self.entries = entries
            for (position, entry) in entries.enumerated() {
                byKey[LearnedSpecies.key(for: entry.binomial), default: []].append(position)
                byAcceptedKey[LearnedSpecies.key(for: entry.acceptedBinomial), default: []].append(position)
                if byGenus[entry.genus.lowercased()] == nil { byGenus[entry.genus.lowercased()] = position }
                let species = entry.commonNameLevel == .genus ? [] : entry.commonNames.values.flatMap { $0 }
                for name in [entry.binomial] + species {
                    let folded = TextFolding.fold(name)
                    if byFoldedName[folded] == nil { namesInOrder.append((folded, [position])) }
                    byFoldedName[folded, default: []].append(position)
                }
            }
        }
    }

    private func index() throws(CatalogError) -> Index {
        let result = state.withLock { state -> Result<Index, CatalogError> in
            if let state { return state }
            let loaded = Result { () throws(CatalogError) -> Index in
                let url: URL
                if let source { url = source } else { url = try SpeciesDirectoryFile.locate() }
                return Index(entries: try SpeciesDirectoryFile.load(from: url))
            }
            state = loaded
            return loaded
        }
        return try result.get()
    }
}

/// Reading `species-directory.json`.
enum SpeciesDirectoryFile {
    static let fileName = "species-directory.json"

    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CatalogError) -> URL {
        if let override = environment["PLANTGUIDE_SPECIES_DIRECTORY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        // The directory ships in the same resource bundle as the catalog.
        let catalog = try CatalogResource.locate(environment: [:])
        return catalog.deletingLastPathComponent().appendingPathComponent(fileName)
    }

    static func load(from url: URL) throws(CatalogError) -> [SpeciesEntry] {
        func fail(_ reason: String) -> CatalogError { .resourceUnreadable(path: url.path, reason: reason) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw fail(error.localizedDescription)
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(Array(data))
        } catch {
            throw fail("not a species directory JSON file (\(error))")
        }
        guard let classes = document["classes"]?.array else { throw fail("not a species directory (no classes)") }
        var entries: [SpeciesEntry] = []
        entries.reserveCapacity(classes.count)
        for (position, item) in classes.enumerated() {
            guard let index = item["index"]?.number, Int(index) == position,
                  let speciesId = item["speciesId"]?.string, let scientificName = item["scientificName"]?.string,
                  let binomial = item["binomial"]?.string, let accepted = item["acceptedBinomial"]?.string,
                  let genus = item["genus"]?.string, let family = item["family"]?.string,
                  case .object(let names)? = item["commonNames"]
            else {
                throw fail("class \(position) is incomplete or out of order")
            }
            var commonNames: [String: [String]] = [:]
            for (language, list) in names { commonNames[language] = list.array?.compactMap(\.string) ?? [] }
            entries.append(SpeciesEntry(
                index: position, speciesId: speciesId, scientificName: scientificName, authorship: item["authorship"]?.string,
                binomial: binomial, acceptedBinomial: accepted, genus: genus, family: family, commonNames: commonNames,
                commonNameLevel: item["commonNameLevel"]?.string.flatMap(CommonNameLevel.init(rawValue:)),
                commonNameSource: item["commonNameSource"]?.string, genusCommonName: item["genusCommonName"]?.string,
                genusNameReference: item["genusNameReference"]?.string
            ))
        }
        return entries
    }
}
