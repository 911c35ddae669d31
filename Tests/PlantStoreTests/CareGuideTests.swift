import Foundation
import PlantCatalog
import PlantGuideCore
import Testing
@testable import PlantStore

@Suite struct CareGuideTests {
    @Test func bundledGuideHasADefaultForEveryCategory() throws {
        let guide = try CareGuide.bundled()
        for category in PlantCategory.allCases {
            #expect(guide.categoryDefaults[category]?.basis == "category \(category.rawValue)")
        }
        #expect(guide.genera.count >= 60)
    }

    /// A pet owner is never told "not toxic" on a claim nobody checked: the guide refuses a row that says "no" while
    /// its source says it was not verified, and every "no" of the bundled guide names its reference.
    @Test func notToxicIsOnlySaidWithAReference() throws {
        let header = "kind\tname\tlight\twater_growing_days\twater_winter_days\tfertilize_days\tmist_days\trepot_days\t"
            + "prune_days\thumidity\ttemp_min_c\ttemp_max_c\ttoxic_cats\ttoxic_dogs\ttoxicity_source\n"
        let unchecked = "genus\tCtenanthe\tmedium\t5\t9\t30\t4\t730\t-\thigh\t18\t29\tno\tno\tnot verified for this group\n"
        #expect(throws: StoreError.self) { try CareGuide(tsv: header + unchecked) }
        let guide = try CareGuide.bundled()
        for profile in Array(guide.genera.values) + Array(guide.categoryDefaults.values)
        where !profile.toxicToCats || !profile.toxicToDogs {
            #expect(!profile.toxicitySource.lowercased().contains("not verified"), "\(profile.basis)")
            #expect(profile.toxicitySource.count > 10, "\(profile.basis): \(profile.toxicitySource)")
        }
        // The 17 genera that said "no" on an unchecked claim are treated as toxic until a reference is found.
        for genus in ["ctenanthe", "stromanthe", "lithops", "phoenix", "neoregelia"] {
            #expect(guide.genera[genus]?.toxicToCats == true, "\(genus)")
        }
    }

    /// An unchecked claim is said as unknown everywhere (never as safe, nor as a known fact); a checked one as it is.
    @Test func toxicityNobodyCheckedIsShownAsUnknown() throws {
        let guide = try CareGuide.bundled()
        var unknown = 0, known = 0
        for profile in Array(guide.genera.values) + Array(guide.categoryDefaults.values) {
            if profile.toxicityIsKnown {
                known += 1
                #expect(!profile.petToxicity.hasPrefix("Unknown"), "\(profile.basis)")
                #expect(!profile.summary.contains("unknown"), "\(profile.basis)")
            } else {
                unknown += 1
                #expect(profile.petToxicity == "Unknown: keep away from cats and dogs until you know", "\(profile.basis)")
                #expect(profile.summary.contains("toxicity to pets unknown"), "\(profile.basis)")
            }
        }
        #expect(unknown >= PlantCategory.allCases.count && known > 0)
        #expect(guide.categoryDefaults[.fern]?.toxicityIsKnown == false)
    }

    @Test func everyBundledProfileIsPlausible() throws {
        let guide = try CareGuide.bundled()
        for profile in Array(guide.genera.values) + Array(guide.categoryDefaults.values) {
            #expect(profile.waterWinterDays >= profile.waterGrowingDays, "\(profile.basis): winter watering more often")
            #expect(profile.minTemperature >= 0 && profile.maxTemperature <= 40, "\(profile.basis): temperatures")
            #expect(profile.maxTemperature - profile.minTemperature >= 8, "\(profile.basis): narrow temperature range")
            #expect(!profile.toxicitySource.isEmpty)
            if profile.humidity == .low { #expect(profile.mistDays == nil, "\(profile.basis): misting a dry-air plant") }
        }
        // Spot checks of well-known facts.
        #expect(guide.genera["monstera"]?.toxicToCats == true)
        #expect(guide.genera["chlorophytum"]?.toxicToCats == false)
        #expect(guide.genera["phalaenopsis"]?.toxicToDogs == false)
        let jade = try #require(guide.genera["crassula"]), fern = try #require(guide.genera["nephrolepis"])
        #expect(jade.waterGrowingDays > fern.waterGrowingDays)
    }

    @Test func everyCatalogPlantGetsAProfile() throws {
        let guide = try CareGuide.bundled()
        let plants = (try? PlantCatalog().allPlants()) ?? []
        for plant in plants {
            let profile = guide.profile(for: plant, name: plant.scientificName)
            let genus = plant.name.genus.lowercased()
            if guide.genera[genus] != nil {
                #expect(profile.basis.lowercased() == "genus \(genus)")
            } else {
                #expect(profile.basis == "category \(plant.category.rawValue)")
            }
        }
        // Also with a small catalog of our own, so the rule is checked even before the catalog is filled.
        let sample = [
            CatalogPlant(scientificName: "Monstera deliciosa", commonNames: [], family: "Araceae", category: .tropicalFoliage),
            CatalogPlant(scientificName: "Unknownia rara", commonNames: [], family: "X", category: .cactus),
        ]
        #expect(guide.profile(for: sample[0], name: "").basis == "genus Monstera")
        #expect(guide.profile(for: sample[1], name: "").basis == "category Cactus")
        #expect(guide.profile(for: nil, name: "my green thing").basis == "general default")
    }

    @Test(arguments: [
        "kind\tname\nbogus\tline",
        "# only a comment",
    ])
    func malformedTablesAreRefused(text: String) {
        #expect(throws: StoreError.self) { try CareGuide(tsv: text) }
    }
}
