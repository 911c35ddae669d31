@testable import PlantCatalog
import PlantGuideCore
import Testing

/// Queries an attacker would send: the search refuses what is over its limits and answers the rest
/// with memory that grows with catalog words, not with the query.
@Suite struct HostileQueryTests {
    let catalog = PlantCatalog(plants: [
        CatalogPlant(scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant"], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Dracaena trifasciata", commonNames: ["Snake Plant"], family: "Asparagaceae", category: .succulent),
    ])

    @Test func aMegabyteQueryIsRefusedWithTheLimit() {
        let query = String(repeating: "monstera", count: 131_072)
        #expect(throws: CatalogError.queryTooLong(limit: InputLimits.queryCharacters)) { try catalog.search(query) }
        #expect(
            CatalogError.queryTooLong(limit: InputLimits.queryCharacters).description
                == "The search is longer than 200 characters. Search for a shorter name."
        )
    }

    @Test func tooManyWordsAreRefusedWithTheLimit() throws {
        let words = Array(repeating: "snake", count: InputLimits.queryWords)
        #expect(try catalog.search(words.joined(separator: " ")).first?.plant.scientificName == "Dracaena trifasciata")
        #expect(throws: CatalogError.queryHasTooManyWords(limit: InputLimits.queryWords)) {
            try catalog.search((words + ["plant"]).joined(separator: " "))
        }
    }

    @Test func aQueryAtTheLimitStillSearches() throws {
        let longest = String(repeating: "x", count: InputLimits.queryCharacters - 9) + " monstera"
        #expect(longest.count == InputLimits.queryCharacters)
        #expect(try catalog.search(longest).isEmpty)
        // Characters, not bytes: 200 accented letters are within the limit.
        #expect(try catalog.search(String(repeating: "é", count: InputLimits.queryCharacters)).isEmpty)
    }

    @Test func suggestionsForAnOverlongNameAreEmptyNotAnError() throws {
        #expect(try catalog.suggestMatches(for: "Monstera " + String(repeating: "a", count: 5_000), confidence: 0.2).isEmpty)
    }

    @Test func editDistanceOnAMegabytePatternAnswers() {
        let pattern = [UInt8](repeating: 97, count: 1_000_000)
        var distance = EditDistance(pattern: pattern, limit: 2)
        #expect(distance.compare(with: Array("monstera".utf8)) == (nil, nil))
        var word = pattern
        word[10] = 98
        word.removeLast()
        let (full, prefix) = distance.compare(with: word)
        #expect(full == 2)
        #expect(prefix == 2)
    }

    @Test func anEmptyPatternIsWithinReachOfShortWords() {
        var distance = EditDistance(pattern: [], limit: 2)
        #expect(distance.compare(with: Array("ab".utf8)) == (2, 0))
        #expect(distance.compare(with: Array("abc".utf8)) == (nil, 0))
    }
}
