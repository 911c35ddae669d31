import PlantCatalog
import PlantGuideCore
import Testing

/// Search semantics on a small hand-made catalog, so each rule is checked in isolation.
@Suite struct SearchBehaviourTests {
    let catalog = PlantCatalog(plants: [
        CatalogPlant(scientificName: "Monstera adansonii", commonNames: ["Swiss Cheese Vine"], family: "Araceae", category: .trailingClimbing),
        CatalogPlant(scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant", "Monstera"], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Monstera deliciosa 'Thai Constellation'", commonNames: [], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Philodendron 'Birkin'", commonNames: [], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Philodendron erubescens 'Pink Princess'", commonNames: ["Pink Princess Philodendron"], family: "Araceae", category: .tropicalFoliage),
        CatalogPlant(scientificName: "Philodendron hederaceum", commonNames: ["Heartleaf Philodendron"], family: "Araceae", category: .trailingClimbing),
        CatalogPlant(scientificName: "Philodendron hederaceum 'Brasil'", commonNames: [], family: "Araceae", category: .trailingClimbing),
        CatalogPlant(scientificName: "Dracaena trifasciata", commonNames: ["Snake Plant", "Mother-in-law's Tongue"], family: "Asparagaceae", category: .succulent),
        CatalogPlant(scientificName: "Dracaena angolensis", commonNames: ["Cylindrical Snake Plant"], family: "Asparagaceae", category: .succulent),
        CatalogPlant(scientificName: "Echinocactus grusonii", commonNames: ["Golden Barrel Cactus"], family: "Cactaceae", category: .cactus),
        CatalogPlant(scientificName: "Cyclamen persicum", commonNames: ["Florist's Cyclamen"], family: "Primulaceae", category: .floweringHouseplant),
        CatalogPlant(scientificName: "Mentha × piperita", commonNames: ["Peppermint"], family: "Lamiaceae", category: .herb),
        CatalogPlant(scientificName: "Tillandsia ionantha", commonNames: ["Sky Plant"], family: "Bromeliaceae", category: .airPlant),
    ])

    private func names(_ query: String, category: PlantCategory? = nil, family: String? = nil) throws -> [String] {
        try catalog.search(query, category: category, family: family).map(\.plant.scientificName)
    }

    @Test func exactScientificNameComesFirst() throws {
        let results = try catalog.search("Monstera deliciosa")
        #expect(results.first?.plant.scientificName == "Monstera deliciosa")
        #expect(results.first?.match.kind == .exact)
        // Its cultivar starts with the same words, so it follows as a prefix match.
        #expect(results.dropFirst().first?.plant.scientificName == "Monstera deliciosa 'Thai Constellation'")
    }

    @Test func caseAndAccentsAreIgnored() throws {
        #expect(try names("MONSTERA DÉLICIOSA").first == "Monstera deliciosa")
    }

    @Test func commonNameFindsEverySnakePlant() throws {
        let results = try names("snake plant")
        #expect(results.first == "Dracaena trifasciata")
        #expect(Set(results) == ["Dracaena trifasciata", "Dracaena angolensis"])
    }

    @Test func prefixFindsAGenus() throws {
        let results = try names("philo")
        #expect(results.count == 4)
        #expect(results.allSatisfy { $0.hasPrefix("Philodendron") })
    }

    @Test(arguments: [
        ("philo brasil", "Philodendron hederaceum 'Brasil'"),
        ("pink princess", "Philodendron erubescens 'Pink Princess'"),
        ("Philodendron hederaceum 'Brasil'", "Philodendron hederaceum 'Brasil'"),
        ("Philodendron hederaceum Brasil", "Philodendron hederaceum 'Brasil'"),
        ("birkin", "Philodendron 'Birkin'"),
        ("thai constellation", "Monstera deliciosa 'Thai Constellation'"),
    ])
    func cultivarsAreFoundByTheirWords(query: String, expected: String) throws {
        #expect(try names(query).first == expected)
    }

    @Test func unknownCultivarFindsItsSpecies() throws {
        let results = try catalog.search("Monstera deliciosa 'Albo Variegata'")
        #expect(results.first?.plant.scientificName == "Monstera deliciosa")
        #expect(results.first?.match.kind == .related)
    }

    @Test(arguments: [
        ("monstra delicosa", "Monstera deliciosa"),
        ("dracena trifaciata", "Dracaena trifasciata"),
        ("echinocatus grusoni", "Echinocactus grusonii"),
        ("tilandsia", "Tillandsia ionantha"),
        ("cyclamne", "Cyclamen persicum"),
    ])
    func typosAreForgiven(query: String, expected: String) throws {
        let results = try catalog.search(query)
        #expect(results.first?.plant.scientificName == expected)
        #expect(results.first.map { $0.match.kind >= .words } == true)
    }

    @Test func shortWordsNeedToMatchWithoutTypos() throws {
        // "mint" is 4 letters: one edit allowed; "xyz" is short: nothing.
        #expect(try names("xyz").isEmpty)
    }

    @Test(arguments: ["", "   ", "\t\n", "''", "-"])
    func blankQueryFindsNothing(query: String) throws {
        #expect(try catalog.search(query).isEmpty)
    }

    @Test func exactBeatsPrefixBeatsWordsBeatsFuzzy() throws {
        let results = try catalog.search("monstera")
        let kinds = results.map(\.match.kind)
        #expect(kinds == kinds.sorted())
        // "Monstera" is a common name of Monstera deliciosa, so that one is exact.
        #expect(results.first?.plant.scientificName == "Monstera deliciosa")
    }

    @Test func equalMatchesKeepCatalogOrderWithSpeciesBeforeCultivars() throws {
        let results = try names("philodendron")
        #expect(results == [
            "Philodendron hederaceum", "Philodendron 'Birkin'",
            "Philodendron erubescens 'Pink Princess'", "Philodendron hederaceum 'Brasil'",
        ])
    }

    @Test func hybridSignIsIgnored() throws {
        #expect(try names("mentha piperita").first == "Mentha × piperita")
    }

    @Test func familyAndCategoryFilter() throws {
        #expect(try names("plant", category: .succulent).allSatisfy { $0.hasPrefix("Dracaena") })
        #expect(try names("plant", category: .succulent).count == 2)
        #expect(try names("araceae").count == 7)
        #expect(try names("swiss", family: "ARACEAE").count == 2)
        #expect(try names("swiss", family: "Cactaceae").isEmpty)
    }

    @Test func limitCutsTheTail() throws {
        #expect(try catalog.search("philodendron", limit: 2).count == 2)
    }
}
