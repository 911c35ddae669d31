import Foundation
import PlantGuideCore
import Synchronization

/// The loaded catalog with its search structures. Immutable once built, so any number of threads may
/// query it at once.
final class CatalogIndex: Sendable {
    let plants: [CatalogPlant]
    let sourceDate: String
    /// Folded full names of all plants: per plant the scientific name (quotes dropped), then common names.
    private let names: WordList
    /// Per plant: the range of its entries in `names`.
    private let nameRanges: [Range<Int32>]
    /// Every distinct folded word in the catalog.
    private let vocabulary: WordList
    /// Per plant: ids of every word of its names and family, flattened; ranges in `wordRanges`.
    private let wordIDs: [Int32]
    private let wordRanges: [Range<Int32>]
    private let isCultivar: [Bool]
    /// Folded scientific name (and former name) → plant index, for exact look-ups.
    private let byName: [ByteKey: Int]
    /// Folded former or trade name → its synonym.
    private let synonyms: [ByteKey: PlantSynonym]
    /// The synonyms table as loaded.
    let allSynonyms: [PlantSynonym]
    /// Lowercased genus → its plants' indices, species first, then cultivars, each in catalog order: made at the first
    /// look-up by genus (parsing every scientific name once), not for every one.
    private let byGenus = Mutex<[String: [Int]]?>(nil)

    init(plants: [CatalogPlant], sourceDate: String, synonyms: [PlantSynonym] = []) {
        self.plants = plants
        self.sourceDate = sourceDate
        var vocabulary = WordList()
        var vocabularyIDs: [ByteKey: Int32] = [:]
        var names = WordList()
        var nameRanges: [Range<Int32>] = []
        var wordIDs: [Int32] = []
        var wordRanges: [Range<Int32>] = []
        var byName: [ByteKey: Int] = [:]
        for (index, plant) in plants.enumerated() {
            let plantNames = ([plant.scientificName] + plant.commonNames + plant.formerNames).map(TextFolding.fold)
            let firstName = Int32(names.count)
            plantNames.forEach { names.append($0) }
            nameRanges.append(firstName..<Int32(names.count))
            var ids = Set<Int32>()
            for word in (plantNames + [TextFolding.fold(plant.family)]).flatMap(TextFolding.words) {
                if let id = vocabularyIDs[ByteKey(word)] {
                    ids.insert(id)
                } else {
                    let id = Int32(vocabulary.count)
                    vocabulary.append(word)
                    vocabularyIDs[ByteKey(word)] = id
                    ids.insert(id)
                }
            }
            let firstWord = Int32(wordIDs.count)
            wordIDs += ids.sorted()
            wordRanges.append(firstWord..<Int32(wordIDs.count))
            if byName[ByteKey(plantNames[0])] == nil { byName[ByteKey(plantNames[0])] = index }
        }
        // Former names after every accepted name: an accepted name always wins.
        for (index, plant) in plants.enumerated() {
            for former in plant.formerNames where byName[ByteKey(TextFolding.fold(former))] == nil {
                byName[ByteKey(TextFolding.fold(former))] = index
            }
        }
        allSynonyms = synonyms
        self.synonyms = Dictionary(synonyms.map { (ByteKey(TextFolding.fold($0.name)), $0) }) { first, _ in first }
        self.names = names
        self.nameRanges = nameRanges
        self.vocabulary = vocabulary
        self.wordIDs = wordIDs
        self.wordRanges = wordRanges
        // Only cultivar names carry quotes.
        self.isCultivar = plants.map { $0.scientificName.utf8.contains(UInt8(ascii: "'")) }
        self.byName = byName
    }

    /// Indices of the plants of `genus` (case ignored): species first, then cultivars, each in catalog order.
    func plants(genus: String) -> [Int] {
        byGenus.withLock { table in
            if table == nil {
                var species: [String: [Int]] = [:]
                var cultivars: [String: [Int]] = [:]
                for (index, plant) in plants.enumerated() {
                    let name = plant.name
                    if name.cultivar == nil {
                        species[name.genus.lowercased(), default: []].append(index)
                    } else {
                        cultivars[name.genus.lowercased(), default: []].append(index)
                    }
                }
                table = species.merging(cultivars) { $0 + $1 }
            }
            return table?[genus.lowercased()] ?? []
        }
    }

    /// The plant whose scientific name (or former name) is `name`, ignoring case, accents and quotes.
    func plant(named name: String) -> Int? {
        byName[ByteKey(TextFolding.fold(name))]
    }

    /// The synonym `name` is, ignoring case, accents and quotes.
    func synonym(named name: String) -> PlantSynonym? {
        synonyms[ByteKey(TextFolding.fold(name))]
    }

    /// Matches `query` against every plant that passes `include` (given the plant's position; every plant when
    /// `nil`), best first.
    func search(_ query: String, include: ((Int) -> Bool)?) -> [(index: Int, match: CatalogMatch)] {
        let folded = TextFolding.fold(query)
        guard !folded.isEmpty else { return [] }
        let queryWords = TextFolding.words(folded)
        var codeCache: [ByteKey: [UInt8]] = [:]
        var results = rank(folded: folded, words: queryWords, codeCache: &codeCache, include: include)
        // A cultivar the catalog lacks still finds its species: retry with trailing words dropped.
        var keep = queryWords.count - 1
        let hasCultivar = ScientificName(parsing: query).cultivar != nil
        while keep >= 2, results.isEmpty || hasCultivar {
            let base = Array(queryWords.prefix(keep))
            let related = rank(
                folded: Array(base.joined(separator: [0x20])), words: base, codeCache: &codeCache, include: include
            )
            let seen = Set(results.map(\.index))
            results += related.filter { !seen.contains($0.index) }.map { ($0.index, CatalogMatch(kind: .related, score: $0.match.score)) }
            if !related.isEmpty { break }
            keep -= 1
        }
        return results
    }

    private func rank(
        folded: [UInt8], words: [[UInt8]], codeCache: inout [ByteKey: [UInt8]], include: ((Int) -> Bool)?
    ) -> [(index: Int, match: CatalogMatch)] {
        let wordCodes = words.map { word in
            if let cached = codeCache[ByteKey(word)] { return cached }
            let codes = matchCodes(for: word)
            codeCache[ByteKey(word)] = codes
            return codes
        }
        var found: [(index: Int, match: CatalogMatch)] = []
        // Every plant is visited: the loop reads the index through raw buffers, so it retains and copies
        // nothing per plant (each plant's strings were retained and released once per search before).
        names.bytes.withUnsafeBufferPointer { nameBytes in
            names.starts.withUnsafeBufferPointer { nameStarts in
                wordIDs.withUnsafeBufferPointer { wordIDs in
                    // One buffer for every query word's codes, a vocabulary's length each.
                    Array(wordCodes.joined()).withUnsafeBufferPointer { codes in
                        let buffers = Buffers(
                            nameBytes: nameBytes, nameStarts: nameStarts, wordIDs: wordIDs, codes: codes,
                            words: wordCodes.count, vocabulary: vocabulary.count
                        )
                        folded.withUnsafeBufferPointer { folded in
                            for index in plants.indices where include?(index) ?? true {
                                if let match = match(plant: index, folded: folded, in: buffers) {
                                    found.append((index, match))
                                }
                            }
                        }
                    }
                }
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

    /// The index's arrays as raw buffers for the length of one search.
    private struct Buffers {
        let nameBytes: UnsafeBufferPointer<UInt8>
        let nameStarts: UnsafeBufferPointer<Int32>
        let wordIDs: UnsafeBufferPointer<Int32>
        /// Per query word, its code for every vocabulary word.
        let codes: UnsafeBufferPointer<UInt8>
        let words: Int
        let vocabulary: Int
    }

    private func match(plant index: Int, folded: UnsafeBufferPointer<UInt8>, in buffers: Buffers) -> CatalogMatch? {
        let range = nameRanges[index]
        var prefixPosition: Int?
        for name in range {
            let start = Int(buffers.nameStarts[Int(name)]), end = Int(buffers.nameStarts[Int(name) + 1])
            guard end - start >= folded.count, let bytes = buffers.nameBytes.baseAddress, let query = folded.baseAddress else { continue }
            // Most names differ at the first letter: no call for those.
            if bytes[start] == query[0], memcmp(bytes + start, query, folded.count) == 0 {
                if end - start == folded.count { return CatalogMatch(kind: .exact, score: name == range.lowerBound ? 0 : 1) }
                if prefixPosition == nil { prefixPosition = Int(name - range.lowerBound) }
            }
        }
        if let prefixPosition {
            return CatalogMatch(kind: .prefix, score: prefixPosition == 0 ? 0 : 1)
        }
        var total = 0
        var fuzzy = false
        let ids = wordRanges[index]
        for word in 0..<buffers.words {
            let offset = word * buffers.vocabulary
            var best = MatchCode.none
            for position in ids {
                best = min(best, buffers.codes[offset + Int(buffers.wordIDs[Int(position)])])
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
        var distance = EditDistance(pattern: word, limit: allowance)
        let wordMask = WordList.letterMask(word)
        var codes = [UInt8](repeating: MatchCode.none, count: vocabulary.count)
        for id in 0..<vocabulary.count {
            let candidate = vocabulary.word(id)
            if candidate.count >= word.count {
                if candidate.starts(with: word) {
                    codes[id] = candidate.count == word.count ? MatchCode.exact : MatchCode.prefix
                    continue
                }
                if word.count >= 3, (wordMask & ~vocabulary.masks[id]) == 0, candidate.containsBytes(word) {
                    codes[id] = MatchCode.substring
                    continue
                }
            }
            // Each edit can remove at most one distinct letter of the query from view.
            guard allowance > 0, (wordMask & ~vocabulary.masks[id]).nonzeroBitCount <= allowance else { continue }
            let (full, prefix) = distance.compare(with: candidate)
            if let full {
                codes[id] = MatchCode.fuzzy + UInt8(full)
            } else if word.count >= 5, let prefix {
                // A typo in a word still being typed: the candidate's start is close to the query.
                codes[id] = MatchCode.fuzzy + 1 + UInt8(prefix)
            }
        }
        return codes
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

/// Folded text as a dictionary key, hashed in one pass over its bytes rather than byte by byte.
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
