import PlantCatalog
import PlantGuideCore
import Testing

/// The spec's search cases, on the catalog PlantGuide ships.
@Suite struct BundledCatalogTests {
    let catalog = PlantCatalog()

    @Test func loadsAndMeetsItsTargets() throws {
        let stats = try catalog.statistics()
        #expect(stats.entries >= 2_000)
        #expect(stats.families >= 45)
        #expect(Set(stats.categories.keys) == Set(PlantCategory.allCases.map(\.rawValue)))
        #expect(stats.categories.values.reduce(0, +) == stats.entries)
    }

    /// Each genus lists exactly the plants whose parsed genus it is (any case), species before cultivars, each in
    /// catalog order.
    @Test func everyGenusListsItsPlantsSpeciesFirst() throws {
        let plants = try catalog.allPlants().map { (scientificName: $0.scientificName, name: $0.name) }
        let byGenus = Dictionary(grouping: plants) { $0.name.genus.lowercased() }
        #expect(byGenus.count > 100)
        for (genus, members) in byGenus {
            let expected = members.filter { $0.name.cultivar == nil } + members.filter { $0.name.cultivar != nil }
            #expect(try catalog.plants(genus: genus.uppercased()).map(\.scientificName) == expected.map(\.scientificName))
        }
        #expect(try catalog.plants(genus: "Monstera").contains { $0.scientificName == "Monstera deliciosa" })
        #expect(try catalog.plants(genus: "Notagenus").isEmpty)
    }

    @Test func monsteraDeliciosaIsAnExactFirstMatch() throws {
        let first = try #require(try catalog.search("Monstera deliciosa").first)
        #expect(first.plant.scientificName == "Monstera deliciosa")
        #expect(first.match.kind == .exact)
    }

    @Test func snakePlantFindsTheSnakePlants() throws {
        let results = try catalog.search("Snake Plant")
        #expect(results.first?.plant.scientificName == "Dracaena trifasciata")
        let snakePlants = try catalog.allPlants().filter { plant in
            plant.commonNames.contains { $0.lowercased().contains("snake plant") }
        }
        #expect(snakePlants.count > 1)
        let found = Set(results.map(\.plant.scientificName))
        #expect(snakePlants.allSatisfy { found.contains($0.scientificName) })
    }

    @Test func philoReturnsPhilodendrons() throws {
        let results = try catalog.search("philo", limit: 20)
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0.plant.scientificName.hasPrefix("Philodendron") })
    }

    @Test(arguments: PlantCategory.allCases)
    func categoryFilterKeepsOnlyThatCategory(category: PlantCategory) throws {
        let results = try catalog.search("a", category: category)
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.plant.category == category })
        #expect(try catalog.plants(category: category).allSatisfy { $0.category == category })
    }

    @Test(arguments: [
        ("philo brasil", "Philodendron hederaceum 'Brasil'"),
        ("pink princess", "Philodendron erubescens 'Pink Princess'"),
        ("Philodendron hederaceum 'Brasil'", "Philodendron hederaceum 'Brasil'"),
        ("monstra delicosa", "Monstera deliciosa"),
        ("Monstera deliciosa 'No Such Cultivar'", "Monstera deliciosa"),
    ])
    func namedCases(query: String, expected: String) throws {
        #expect(try catalog.search(query).first?.plant.scientificName == expected)
    }

    @Test func sansiveriaFindsTheFormerSansevierias() throws {
        let results = try catalog.search("sansiveria", limit: 10)
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.match.kind == .fuzzy })
        #expect(results.contains { $0.plant.scientificName == "Dracaena trifasciata" })
    }

    @Test func emptyQueryFindsNothing() throws {
        #expect(try catalog.search("  ").isEmpty)
    }

    @Test func entriesAreFoundByTheirOwnName() throws {
        // Every fifth entry keeps the debug-build run short while covering every genus's neighbours.
        let plants = try catalog.allPlants()
        for plant in stride(from: 0, to: plants.count, by: 5).map({ plants[$0] }) {
            let first = try catalog.search(plant.scientificName, limit: 1).first
            #expect(first?.plant == plant, "\(plant.scientificName)")
        }
    }
}
