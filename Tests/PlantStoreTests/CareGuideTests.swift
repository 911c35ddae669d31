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

    /// A pet owner is never told "not toxic" on a claim nobody checked: toxicity is yes, no or unknown; a known value
    /// names its reference, an unknown one says it was not verified (and is kept as toxic, to be safe).
    @Test func toxicityIsYesNoOrUnknownWithItsSource() throws {
        let header = "kind\tname\tlight\twater_growing_days\twater_winter_days\tfertilize_days\tmist_days\trepot_days\t"
            + "prune_days\thumidity\ttemp_min_c\ttemp_max_c\ttoxic_cats\ttoxic_dogs\ttoxicity_source\n"
        func row(_ cats: String, _ dogs: String, _ source: String) -> String {
            "genus\tCtenanthe\tmedium\t5\t9\t30\t4\t730\t-\thigh\t18\t29\t\(cats)\t\(dogs)\t\(source)\n"
        }
        let categories = PlantCategory.allCases.map {
            "category\t\($0.rawValue)\tmedium\t7\t14\t30\t-\t730\t-\tmedium\t15\t29\tunknown\tunknown\tnot verified\n"
        }.joined()
        for refused in [
            row("no", "no", "not verified for this group"),      // "not toxic" on an unchecked claim
            row("yes", "yes", "not verified for this group"),    // a guess said as a fact: it is unknown
            row("unknown", "unknown", "ASPCA: Peacock Plant"),   // unknown, yet a reference is named
            row("unknown", "no", "ASPCA: Peacock Plant"),        // known for one animal only
            row("maybe", "no", "ASPCA: Peacock Plant"),
        ] {
            #expect(throws: StoreError.self, "\(refused)") { try CareGuide(tsv: header + categories + refused) }
        }
        let unknown = try CareGuide(tsv: header + categories + row("unknown", "unknown", "not verified; no entry found"))
        let profile = try #require(unknown.genera["ctenanthe"])
        #expect(profile.toxicToCats && profile.toxicToDogs && !profile.toxicityIsKnown)
        #expect(profile.petToxicity == "Unknown: keep away from cats and dogs until you know")
        let known = try CareGuide(tsv: header + categories + row("no", "no", "ASPCA: Never Never Plant"))
        #expect(known.genera["ctenanthe"]?.petToxicity == "Not toxic to cats or dogs")

        let guide = try CareGuide.bundled()
        for profile in Array(guide.genera.values) + Array(guide.categoryDefaults.values)
        where !profile.toxicToCats || !profile.toxicToDogs {
            #expect(!profile.toxicitySource.lowercased().contains("not verified"), "\(profile.basis)")
            #expect(profile.toxicitySource.count > 10, "\(profile.basis): \(profile.toxicitySource)")
        }
    }

    /// The build check of #36: every known toxicity value of the bundled guide agrees with the ASPCA facts it cites
    /// (`aspca-facts.tsv`, one line per ASPCA page, each confirmed from a quoted copy), and no row says "unknown"
    /// while a fact for its genus is on record. A genus is toxic to an animal when any of its recorded pages says so.
    @Test func everyToxicityValueAgreesWithItsFactSource() throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/PlantStore/Resources").standardizedFileURL
        let facts = try String(contentsOf: resources.appendingPathComponent("aspca-facts.tsv"), encoding: .utf8)
        var toxic: [String: (cats: Bool, dogs: Bool, pages: [String])] = [:]
        var columns: [String]?
        for line in facts.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let names = columns else { columns = fields; continue }
            try #require(fields.count == names.count, "aspca-facts.tsv: \(line)")
            let row = Dictionary(uniqueKeysWithValues: zip(names, fields))
            let genus = try #require(row["genus"]).lowercased()
            for key in ["cats", "dogs"] { #expect(["toxic", "non-toxic"].contains(row[key] ?? ""), "\(line)") }
            #expect(row["url"]?.hasPrefix("https://www.aspca.org/") == true, "\(line)")
            var entry = toxic[genus] ?? (false, false, [])
            entry.cats = entry.cats || row["cats"] == "toxic"
            entry.dogs = entry.dogs || row["dogs"] == "toxic"
            entry.pages.append(try #require(row["aspca_name"]))
            toxic[genus] = entry
        }
        #expect(toxic.count >= 40)

        let guide = try CareGuide.bundled()
        for (genus, profile) in guide.genera {
            guard let fact = toxic[genus] else {
                #expect(!profile.toxicityIsKnown, "genus \(genus) says '\(profile.petToxicity)' without an ASPCA fact")
                continue
            }
            #expect(profile.toxicityIsKnown, "genus \(genus) says unknown, but ASPCA facts are on record: \(fact.pages)")
            #expect(profile.toxicToCats == fact.cats && profile.toxicToDogs == fact.dogs,
                    "genus \(genus): the guide says \(profile.petToxicity), ASPCA's pages \(fact.pages) say otherwise")
            for page in fact.pages {
                #expect(profile.toxicitySource.contains(page), "genus \(genus): the source does not name \(page)")
            }
        }
        for profile in guide.categoryDefaults.values { #expect(!profile.toxicityIsKnown, "\(profile.basis)") }
    }

    /// Every genus of the catalog has its own row (the category default is kept for free-text names).
    @Test func everyCatalogGenusHasItsOwnRow() throws {
        let guide = try CareGuide.bundled()
        let genera = Set(try PlantCatalog().allPlants().map { $0.name.genus.lowercased() })
        #expect(genera.count > 300)
        let missing = genera.filter { guide.genera[$0] == nil }.sorted()
        #expect(missing.isEmpty, "no care row for \(missing.count) catalog genera: \(missing.prefix(20))")
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
        // These grow in the cool months and rest in summer (their rows' notes say so): the app's growing season is their
        // rest, so they are watered less often then and never fed.
        let summerResting: Set = ["aeonium", "albuca", "argyroderma", "bowiea", "cheiridopsis", "conophytum", "dioscorea", "tylecodon"]
        for (genus, profile) in guide.genera where summerResting.contains(genus) {
            #expect(profile.waterWinterDays < profile.waterGrowingDays && profile.fertilizeGrowingDays == nil, "\(genus)")
        }
        for profile in Array(guide.genera.values) + Array(guide.categoryDefaults.values) {
            if !summerResting.contains(profile.basis.lowercased().replacingOccurrences(of: "genus ", with: "")) {
                #expect(profile.waterWinterDays >= profile.waterGrowingDays, "\(profile.basis): winter watering more often")
            }
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
