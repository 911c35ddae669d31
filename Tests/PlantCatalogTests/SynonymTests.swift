import Foundation
import PlantCatalog
import PlantGuideCore
import Testing

/// Former and trade names people type, resolved to the catalog entry they belong to.
@Suite struct SynonymTests {
    let catalog = PlantCatalog()

    /// The moves the catalog made, which names people still use.
    @Test(arguments: [
        ("Calathea orbifolia", "Goeppertia orbifolia"),
        ("Sansevieria trifasciata", "Dracaena trifasciata"),
        ("Scindapsus aureus", "Epipremnum aureum"),
        ("Senecio rowleyanus", "Curio rowleyanus"),
        ("Saintpaulia ionantha", "Streptocarpus ionanthus"),
        ("Schefflera arboricola", "Heptapleurum arboricola"),
    ])
    func formerNamesFindTheEntry(_ former: String, _ accepted: String) throws {
        let found = try #require(try catalog.resolve(former))
        #expect(found.plant.scientificName == accepted)
        #expect(found.synonym?.name == former && found.synonym?.kind == .former)
        #expect(found.synonym?.source.isEmpty == false)
        #expect(try catalog.plant(named: former.uppercased())?.scientificName == accepted)
        #expect(try catalog.plant(named: "\(former) L.")?.scientificName == accepted)
        let first = try #require(try catalog.search(former, limit: 3).first)
        #expect(first.plant.scientificName == accepted && first.match.kind == .exact)
        #expect(found.plant.formerNames.contains(former))
        #expect(try catalog.synonyms(of: accepted).contains { $0.name == former })
    }

    @Test func theNoticeSaysWhatTheNameIsNow() throws {
        let found = try #require(try catalog.resolve("calathea orbifolia"))
        #expect(found.synonym?.notice(for: found.plant) == "Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea).")
        let trade = try #require(try catalog.resolve("Calathea lancifolia"))
        #expect(trade.plant.scientificName == "Goeppertia insignis" && trade.synonym?.kind == .trade)
        #expect(trade.synonym?.notice(for: trade.plant).contains("trade name of Goeppertia insignis") == true)
    }

    @Test func anAcceptedNameIsNeverASynonym() throws {
        let synonyms = try catalog.synonyms()
        #expect(synonyms.count >= 60)
        let names = Set(try catalog.allPlants().map { $0.scientificName.lowercased() })
        for synonym in synonyms {
            #expect(!names.contains(synonym.name.lowercased()), "\(synonym.name)")
            #expect(names.contains(synonym.accepted.lowercased()), "\(synonym.accepted)")
        }
        let own = try #require(try catalog.resolve("Goeppertia orbifolia"))
        #expect(own.synonym == nil)
        #expect(try catalog.resolve("Calathea lutea")?.synonym == nil)
    }

    @Test func entriesReadBackWithTheirFormerNames() throws {
        let plant = try #require(try catalog.plant(named: "Epipremnum aureum"))
        let data = try JSONEncoder().encode(plant)
        #expect(try JSONDecoder().decode(CatalogPlant.self, from: data) == plant)
        let old = Data(#"{"scientificName": "Aloe vera", "commonNames": [], "family": "Asphodelaceae", "category": "Succulent"}"#.utf8)
        #expect(try JSONDecoder().decode(CatalogPlant.self, from: old).formerNames == [])
    }
}
