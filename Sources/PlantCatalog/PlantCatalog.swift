import Foundation
import PlantGuideCore
import Synchronization

/// The bundled houseplant catalog: search, browse, filters and identification suggestions.
///
/// The catalog file is read on first use, once; afterwards every method is a lookup in memory and is
/// safe to call from any number of tasks at once.
public final class PlantCatalog: Sendable {
    private let source: Source
    private let state = Mutex<Result<CatalogIndex, CatalogError>?>(nil)
    /// Recent searches and their ranked hits: the catalog never changes once loaded, so an answer stays right, and
    /// people (and search-as-you-type) ask the same few queries over and over.
    private let recentSearches = Mutex(SearchCache(capacity: 512))

    private enum Source {
        case file(URL?)
        case plants([CatalogPlant], sourceDate: String)
    }

    /// The catalog bundled with PlantGuide (or the file named by `PLANTGUIDE_CATALOG`).
    public init() {
        source = .file(nil)
    }

    /// A catalog read from a file in the bundled format.
    public init(contentsOf url: URL) {
        source = .file(url)
    }

    /// A catalog of the given plants (for tests and previews).
    public init(plants: [CatalogPlant], sourceDate: String = "") {
        source = .plants(plants, sourceDate: sourceDate)
    }

    /// Loads the catalog now if it is not loaded yet. Later calls return at once.
    public func load() throws(CatalogError) {
        _ = try index()
    }

    /// Every plant, ordered by scientific name.
    public func allPlants() throws(CatalogError) -> [CatalogPlant] {
        try index().plants
    }

    /// The date the catalog's sources were curated (`YYYY-MM-DD`).
    public func sourceDate() throws(CatalogError) -> String {
        try index().sourceDate
    }

    /// Finds plants by scientific name, common name, genus, family or cultivar name.
    ///
    /// Case, accents and quotes are ignored; each query word may match a whole word, a word's start
    /// or a part of one, and words of four letters or more tolerate typos (one edit, two from eight
    /// letters). Results come best first: exact, then prefix, then word, then fuzzy matches, ties
    /// broken by fewer edits, species before cultivars, then by name. An empty query finds nothing.
    ///
    /// A query over ``PlantGuideCore/InputLimits/queryCharacters`` characters or
    /// ``PlantGuideCore/InputLimits/queryWords`` words is refused (see ``checkQuery(_:)``), so a search
    /// costs bounded time and memory whatever it is given.
    /// - Parameters:
    ///   - query: what the person typed.
    ///   - category: keep only this category.
    ///   - family: keep only this family (case-insensitive).
    ///   - limit: at most this many results.
    public func search(
        _ query: String, category: PlantCategory? = nil, family: String? = nil, limit: Int? = nil
    ) throws(CatalogError) -> [CatalogSearchResult] {
        try Self.checkQuery(query)
        let index = try index()
        let familyKey = family.map { $0.lowercased() }
        let key = SearchCache.Key(query: query, category: category, family: familyKey)
        let found: [(index: Int, match: CatalogMatch)]
        if let known = recentSearches.withLock({ $0[key] }) {
            found = known
        } else {
            let plants = index.plants
            found = index.search(query, include: category == nil && familyKey == nil ? nil : { position in
                (category == nil || plants[position].category == category)
                    && (familyKey == nil || plants[position].family.lowercased() == familyKey)
            })
            recentSearches.withLock { $0[key] = found }
        }
        return found.prefix(limit ?? found.count).map { CatalogSearchResult(plant: index.plants[$0.index], match: $0.match) }
    }

    /// Refuses a query over the search limits, in time bounded by the limits whatever the query's length.
    /// - Throws: ``CatalogError/queryTooLong(limit:)`` or ``CatalogError/queryHasTooManyWords(limit:)``.
    public static func checkQuery(_ query: String) throws(CatalogError) {
        if InputLimits.exceeds(query, characters: InputLimits.queryCharacters) {
            throw .queryTooLong(limit: InputLimits.queryCharacters)
        }
        if TextFolding.words(TextFolding.fold(query)).count > InputLimits.queryWords {
            throw .queryHasTooManyWords(limit: InputLimits.queryWords)
        }
    }

    /// Plants filtered by category and/or family, ordered by scientific name.
    public func plants(category: PlantCategory? = nil, family: String? = nil) throws(CatalogError) -> [CatalogPlant] {
        let familyKey = family?.lowercased()
        return try index().plants.filter { plant in
            (category == nil || plant.category == category) && (familyKey == nil || plant.family.lowercased() == familyKey)
        }
    }

    /// Plants grouped by the first letter of their scientific name, for an A–Z listing.
    public func browse(category: PlantCategory? = nil) throws(CatalogError) -> [CatalogSection] {
        let grouped = Dictionary(grouping: try plants(category: category)) { plant in
            plant.scientificName.first.map { String($0).uppercased() } ?? "#"
        }
        return grouped.keys.sorted().map { CatalogSection(letter: $0, plants: grouped[$0] ?? []) }
    }

    /// Counts of entries, families and entries per category.
    public func statistics() throws(CatalogError) -> CatalogStatistics {
        let plants = try index().plants
        var categories: [String: Int] = [:]
        for plant in plants { categories[plant.category.rawValue, default: 0] += 1 }
        return CatalogStatistics(
            entries: plants.count, families: Set(plants.map(\.family)).count, categories: categories
        )
    }

    /// The catalog's plants of one genus (case ignored): species first, then cultivars, each A–Z.
    public func plants(genus: String) throws(CatalogError) -> [CatalogPlant] {
        let index = try index()
        return index.plants(genus: genus).map { index.plants[$0] }
    }

    /// The entry for a scientific name, ignoring authorship, case, accents and quotes:
    /// `Monstera deliciosa Liebm.` finds `Monstera deliciosa`. A former or trade name finds the entry it belongs to
    /// (`Calathea orbifolia` finds `Goeppertia orbifolia`); ``resolve(_:)`` also says which.
    public func plant(named name: String) throws(CatalogError) -> CatalogPlant? {
        try resolve(name)?.plant
    }

    /// The entry a person means by `name`: a scientific, former or trade name (as ``plant(named:)``), else a common name
    /// the search matches exactly; `nil` when nothing matches that well or the catalog cannot be read. How a plant added
    /// to a collection by name finds its catalog entry, on the command line and on the web.
    public func entry(matching name: String) -> CatalogPlant? {
        if let plant = try? plant(named: name) { return plant }
        guard let best = try? search(name, limit: 1).first, best.match.kind == .exact else { return nil }
        return best.plant
    }

    /// The entry for a scientific, former or trade name (as ``plant(named:)``), and the synonym that led to it when
    /// `name` is not the entry's own name.
    public func resolve(_ name: String) throws(CatalogError) -> (plant: CatalogPlant, synonym: PlantSynonym?)? {
        let index = try index()
        for key in Self.lookupKeys(name) {
            guard let found = index.plant(named: key) else { continue }
            let plant = index.plants[found]
            let synonym = TextFolding.fold(plant.scientificName) == TextFolding.fold(key) ? nil : index.synonym(named: key)
            return (plant, synonym)
        }
        return nil
    }

    /// "Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea)." and the entry it names, when `name` is
    /// a former or trade name of a catalog entry; `nil` otherwise (an entry's own name, a common name, no match).
    public func renamingNotice(for name: String) -> (accepted: CatalogPlant, notice: String)? {
        guard let found = try? resolve(name), let synonym = found.synonym else { return nil }
        return (found.plant, synonym.notice(for: found.plant))
    }

    /// The name as given, then its binomial (with the cultivar) without authorship.
    private static func lookupKeys(_ name: String) -> [String] {
        let parsed = ScientificName(parsing: name)
        var key = parsed.binomial
        if let cultivar = parsed.cultivar { key += " '\(cultivar)'" }
        return key == name ? [name] : [name, key]
    }

    /// The former and trade names of the entry named `scientificName`.
    public func synonyms(of scientificName: String) throws(CatalogError) -> [PlantSynonym] {
        try index().allSynonyms.filter { $0.accepted == scientificName }
    }

    /// Every former and trade name in the catalog's synonyms table.
    public func synonyms() throws(CatalogError) -> [PlantSynonym] {
        try index().allSynonyms
    }

    /// Catalog entries to offer beside an identification.
    ///
    /// When the identifier is unsure (`confidence` below 0.7) this is the five closest names in the
    /// catalog, typos allowed. When it is sure, it is the matching entry first, then the other
    /// species and cultivars of the same genus.
    public func suggestMatches(for identifiedName: String, confidence: Double) throws(CatalogError) -> [CatalogPlant] {
        let index = try index()
        let parsed = ScientificName(parsing: identifiedName)
        // A name too long to search for cannot be close to any catalog name.
        guard !parsed.genus.isEmpty, (try? Self.checkQuery(parsed.binomial)) != nil else { return [] }
        if confidence < 0.7 {
            return try search(parsed.binomial, limit: 5).map(\.plant)
        }
        let exact = try plant(named: identifiedName)
        let genusKey = parsed.genus.lowercased()
        let sameGenus = index.plants.filter { $0.name.genus.lowercased() == genusKey && $0 != exact }
        if exact == nil, sameGenus.isEmpty {
            return try search(parsed.binomial, limit: 5).map(\.plant)
        }
        return (exact.map { [$0] } ?? []) + sameGenus
    }

    private func index() throws(CatalogError) -> CatalogIndex {
        let result = state.withLock { state -> Result<CatalogIndex, CatalogError> in
            if let state { return state }
            let loaded = Result { () throws(CatalogError) -> CatalogIndex in
                switch source {
                case .plants(let plants, let sourceDate):
                    return CatalogIndex(plants: plants, sourceDate: sourceDate)
                case .file(let url):
                    let location: URL
                    if let url { location = url } else { location = try CatalogResource.locate() }
                    let file = try CatalogFile.load(from: location)
                    return CatalogIndex(plants: file.plants, sourceDate: file.sourceDate, synonyms: file.synonyms)
                }
            }
            state = loaded
            return loaded
        }
        return try result.get()
    }
}

/// One search hit.
public struct CatalogSearchResult: Sendable, Hashable {
    /// The catalog entry.
    public var plant: CatalogPlant
    /// How it matched.
    public var match: CatalogMatch
}

/// Plants whose scientific name starts with one letter.
public struct CatalogSection: Sendable, Hashable, Codable {
    /// The letter, upper case.
    public var letter: String
    /// The plants, ordered by scientific name.
    public var plants: [CatalogPlant]
}

/// Catalog counts, as printed by `plantguide catalog stats --json`.
public struct CatalogStatistics: Sendable, Hashable, Codable {
    /// Number of entries (species and cultivars).
    public var entries: Int
    /// Number of distinct families.
    public var families: Int
    /// Entries per category name.
    public var categories: [String: Int]
}

/// The ranked hits of the last searches, the oldest forgotten first once `capacity` are kept.
struct SearchCache: Sendable {
    struct Key: Hashable, Sendable {
        var query: String
        var category: PlantCategory?
        var family: String?
    }

    let capacity: Int
    private var hits: [Key: [(index: Int, match: CatalogMatch)]] = [:]
    /// Keys in the order they were added, for forgetting the oldest.
    private var order: [Key] = []
    private var oldest = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    subscript(key: Key) -> [(index: Int, match: CatalogMatch)]? {
        get { hits[key] }
        set {
            guard let newValue, hits[key] == nil else { return }
            // A query too long to be asked again is not worth the memory.
            guard key.query.utf8.count <= 64 else { return }
            if order.count < capacity {
                order.append(key)
            } else {
                hits[order[oldest]] = nil
                order[oldest] = key
                oldest = (oldest + 1) % capacity
            }
            hits[key] = newValue
        }
    }
}
