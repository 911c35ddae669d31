import PlantCatalog
import PlantGuideCore
import Testing

@Suite struct BrowseAndSuggestTests {
    let catalog = PlantCatalog(plants: [
        CatalogPlant(scientificName: "Aloe vera", commonNames: ["Aloe"], family: "Asphodelaceae", category: .succulent),
        CatalogPlant(scientificName: "Anthurium andraeanum", commonNames: ["Flamingo Flower"], family: "Araceae", category: .floweringHouseplant),
        CatalogPlant(scientificName: "Monstera adansonii", commonNames: [], family: "Araceae", category: .trailingClimbing),
        CatalogPlant(scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant"], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Monstera deliciosa 'Thai Constellation'", commonNames: [], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Mammillaria elongata", commonNames: ["Ladyfinger Cactus"], family: "Cactaceae", category: .cactus),
    ])

    @Test func browseGroupsByFirstLetter() throws {
        let sections = try catalog.browse()
        #expect(sections.map(\.letter) == ["A", "M"])
        #expect(sections[0].plants.count == 2)
        #expect(sections[1].plants.count == 4)
    }

    @Test func browseFiltersByCategory() throws {
        let sections = try catalog.browse(category: .cactus)
        #expect(sections.map(\.letter) == ["M"])
        #expect(sections.flatMap(\.plants).map(\.scientificName) == ["Mammillaria elongata"])
    }

    @Test func statisticsCountFromTheData() throws {
        let stats = try catalog.statistics()
        #expect(stats.entries == 6)
        #expect(stats.families == 3)
        #expect(stats.categories["Tropical Foliage"] == 2)
        #expect(stats.categories.values.reduce(0, +) == stats.entries)
    }

    @Test func confidentSuggestionIsTheMatchThenItsGenus() throws {
        let suggestions = try catalog.suggestMatches(for: "Monstera deliciosa Liebm.", confidence: 0.92)
        #expect(suggestions.map(\.scientificName) == [
            "Monstera deliciosa", "Monstera adansonii", "Monstera deliciosa 'Thai Constellation'",
        ])
    }

    @Test func unsureSuggestionIsFiveFuzzyMatchesAtMost() throws {
        let suggestions = try catalog.suggestMatches(for: "Monstera delicosa", confidence: 0.4)
        #expect(suggestions.first?.scientificName == "Monstera deliciosa")
        #expect(suggestions.count <= 5)
    }

    @Test func lookupIgnoresAuthorshipAndCase() throws {
        #expect(try catalog.plant(named: "monstera deliciosa")?.commonNames == ["Swiss Cheese Plant"])
        #expect(try catalog.plant(named: "Aloe vera (L.) Burm.f.")?.scientificName == "Aloe vera")
        #expect(try catalog.plant(named: "Ficus elastica") == nil)
    }

    @Test func concurrentQueriesAgree() async throws {
        let fresh = PlantCatalog(plants: try catalog.allPlants())
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try fresh.search("monstera").count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.count == 32)
        #expect(Set(counts) == [3])
    }
}
