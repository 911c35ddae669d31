import PlantCatalog
import PlantGuideCore
import Testing
@testable import PlantGuideCLI

@Suite struct CatalogEnricherTests {
    @Test func knownSpeciesGetCatalogNamesAndOthersStayBare() throws {
        let known = CatalogPlant(
            scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant", "Monstera"], family: "Araceae",
            category: PlantCategory.allCases[0]
        )
        let catalog = PlantCatalog(plants: [known], sourceDate: "2026-01-01")
        var identification = Identification(
            source: .onDevice, model: "test",
            predictions: [
                SpeciesPrediction(rank: 1, scientificName: known.name.binomial, confidence: 0.8, classIndex: 3),
                SpeciesPrediction(rank: 2, scientificName: "Notaplantus imaginarius", confidence: 0.1, classIndex: 4),
            ],
            uncertain: false
        )
        CatalogEnricher(catalog: catalog).enrich(&identification)
        #expect(identification.predictions[0].commonNames == ["Swiss Cheese Plant", "Monstera"])
        #expect(identification.predictions[0].family == "Araceae")
        #expect(identification.predictions[0].category == PlantCategory.allCases[0])
        #expect(identification.predictions[0].inCatalog)
        #expect(identification.predictions[1].commonNames.isEmpty)
        #expect(!identification.predictions[1].inCatalog)
    }
}
