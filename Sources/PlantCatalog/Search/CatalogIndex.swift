import PlantGuideCore

/// The loaded catalog with its search structures. Immutable once built, so any number of threads may
/// query it at once.
final class CatalogIndex: Sendable {
    let plants: [CatalogPlant]
    let sourceDate: String
    /// Per plant: folded full names, the scientific name (quotes dropped) first, then common names.
    private let names: [[[UInt8]]]
    /// Per plant: ids of every word in its names, genus, family and cultivar.
    private let wordIDs: [[Int32]]
    /// Every distinct folded word in the catalog.
    private let vocabulary: [[UInt8]]
    private let isCultivar: [Bool]
    /// Folded scientific name (and binomial for species) → plant index, for exact look-ups.
    private let byName: [[UInt8]: Int]

    init(plants: [CatalogPlant], sourceDate: String) {
        self.plants = plants
        self.sourceDate = sourceDate
        var vocabulary: [[UInt8]] = []
        var vocabularyIDs: [[UInt8]: Int32] = [:]
        var names: [[[UInt8]]] = []
        var wordIDs: [[Int32]] = []
        var byName: [[UInt8]: Int] = [:]
        for (index, plant) in plants.enumerated() {
            let plantNames = ([plant.scientificName] + plant.commonNames).map(TextFolding.fold)
            names.append(plantNames)
            var ids = Set<Int32>()
            for word in (plantNames + [TextFolding.fold(plant.family)]).flatMap(TextFolding.words) {
                if let id = vocabularyIDs[word] {
                    ids.insert(id)
                } else {
                    let id = Int32(vocabulary.count)
                    vocabulary.append(word)
                    vocabularyIDs[word] = id
                    ids.insert(id)
                }
            }
            wordIDs.append(ids.sorted())
            if byName[plantNames[0]] == nil { byName[plantNames[0]] = index }
        }
        self.names = names
        self.wordIDs = wordIDs
        self.vocabulary = vocabulary
        self.isCultivar = plants.map { $0.name.cultivar != nil }
        self.byName = byName
    }

    /// The plant whose scientific name is `name`, ignoring case, accents and quotes.
    func plant(named name: String) -> Int? {
        byName[TextFolding.fold(name)]
    }

    /// Matches `query` against every plant that passes `include`, best first.
    func search(_ query: String, include: (CatalogPlant) -> Bool) -> [(index: Int, match: CatalogMatch)] {
        let folded = TextFolding.fold(query)
        guard !folded.isEmpty else { return [] }
        let queryWords = TextFolding.words(folded)
        var results = rank(folded: folded, words: queryWords, include: include)
        // A cultivar the catalog lacks still finds its species: retry with trailing words dropped.
        var keep = queryWords.count - 1
        let hasCultivar = ScientificName(parsing: query).cultivar != nil
        while keep >= 2, results.isEmpty || hasCultivar {
            let base = Array(queryWords.prefix(keep))
            let related = rank(folded: Array(base.joined(separator: [0x20])), words: base, include: include)
            let seen = Set(results.map(\.index))
            results += related.filter { !seen.contains($0.index) }.map { ($0.index, CatalogMatch(kind: .related, score: $0.match.score)) }
            if !related.isEmpty { break }
            keep -= 1
        }
        return results
    }

    private func rank(folded: [UInt8], words: [[UInt8]], include: (CatalogPlant) -> Bool) -> [(index: Int, match: CatalogMatch)] {
        let wordCodes = words.map(matchCodes(for:))
        var found: [(index: Int, match: CatalogMatch)] = []
        for index in plants.indices where include(plants[index]) {
            if let match = match(plant: index, folded: folded, wordCodes: wordCodes) {
                found.append((index, match))
            }
        }
        found.sort { left, right in
            if left.match.kind != right.match.kind { return left.match.kind < right.match.kind }
            if left.match.score != right.match.score { return left.match.score < right.match.score }
            if isCultivar[left.index] != isCultivar[right.index] { return !isCultivar[left.index] }
            return left.index < right.index
        }
        return found
    }

    private func match(plant index: Int, folded: [UInt8], wordCodes: [[UInt8]]) -> CatalogMatch? {
        let plantNames = names[index]
        if let position = plantNames.firstIndex(of: folded) {
            return CatalogMatch(kind: .exact, score: position == 0 ? 0 : 1)
        }
        if let position = plantNames.firstIndex(where: { $0.hasPrefix(folded) }) {
            return CatalogMatch(kind: .prefix, score: position == 0 ? 0 : 1)
        }
        var total = 0
        var fuzzy = false
        for codes in wordCodes {
            var best = MatchCode.none
            for id in wordIDs[index] {
                best = min(best, codes[Int(id)])
                if best == MatchCode.exact { break }
            }
            if best == MatchCode.none { return nil }
            if best >= MatchCode.fuzzy { fuzzy = true }
            total += Int(best)
        }
        return CatalogMatch(kind: fuzzy ? .fuzzy : .words, score: total)
    }

    /// How well one query word matches each vocabulary word (see ``MatchCode``).
    private func matchCodes(for word: [UInt8]) -> [UInt8] {
        let allowance = EditDistance.allowance(forLength: word.count)
        return vocabulary.map { candidate in
            if candidate == word { return MatchCode.exact }
            if candidate.hasPrefix(word) { return MatchCode.prefix }
            if word.count >= 3, candidate.containsBytes(word) { return MatchCode.substring }
            guard allowance > 0 else { return MatchCode.none }
            if let distance = EditDistance.distance(word, candidate, limit: allowance) {
                return MatchCode.fuzzy + UInt8(distance)
            }
            // A typo in a word still being typed: compare with the candidate's start.
            if word.count >= 5, candidate.count > word.count,
               let distance = EditDistance.distance(word, Array(candidate.prefix(word.count)), limit: allowance) {
                return MatchCode.fuzzy + 1 + UInt8(distance)
            }
            return MatchCode.none
        }
    }
}

/// Per-word match quality, lower is better.
private enum MatchCode {
    static let exact: UInt8 = 0
    static let prefix: UInt8 = 1
    static let substring: UInt8 = 2
    static let fuzzy: UInt8 = 10
    static let none: UInt8 = .max
}
