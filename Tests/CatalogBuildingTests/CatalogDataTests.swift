import CatalogBuilding
import Foundation
import Testing

/// Checks the committed catalog data and resource. Counts are compared against the catalog's promises
/// (thresholds), never against today's exact numbers, so curation can grow without editing tests.
@Suite struct CatalogDataTests {
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let builder = CatalogBuilder(sourcesDirectory: packageRoot)

    /// Loaded once for the whole suite: Swift Testing makes a suite instance per test (and per argument).
    static let loaded: Result<Catalog, CatalogBuildError> = {
        do throws(CatalogBuildError) {
            return .success(try builder.load())
        } catch {
            return .failure(error)
        }
    }()

    let catalog: Catalog

    init() throws {
        catalog = try Self.loaded.get()
    }

    private func grinNames() throws -> Set<String> {
        let text = try String(contentsOf: Self.packageRoot.appending(path: CatalogPaths.grinNames), encoding: .utf8)
        // The file has CRLF line endings; Swift treats "\r\n" as one newline character.
        return Set(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// GRIN spells the hybrid sign as a plain `x`.
    private func grinSpelling(_ binomial: String) -> String {
        binomial.replacingOccurrences(of: "×", with: "x")
    }

    @Test func committedResourceMatchesAFreshBuild() throws {
        let committed = try Data(contentsOf: Self.packageRoot.appending(path: CatalogPaths.resource))
        let fresh = try CatalogBuilder.resource(for: catalog)
        #expect(committed == fresh, "run `swift run plantguide-catalog-build` and commit the resource")
    }

    @Test func buildIsDeterministic() throws {
        #expect(try Self.builder.build() == Self.builder.build())
    }

    @Test func resourceHasTheAgreedShape() throws {
        let data = try CatalogBuilder.resource(for: catalog)
        #expect(data.last == 0x0A)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["source_date", "total_plants", "sources", "plants", "synonyms"])
        #expect((object["synonyms"] as? [[String: String]])?.count == catalog.synonyms.count)
        let plants = try #require(object["plants"] as? [[String: Any]])
        #expect(object["total_plants"] as? Int == plants.count)
        let names = plants.compactMap { $0["scientific_name"] as? String }
        #expect(names == catalog.entries.map(\.scientificName))
        for plant in plants.prefix(50) {
            #expect(plant["common_names"] is [String])
            #expect(plant["family"] is String)
            #expect(plant["category"] is String)
        }
    }

    @Test func meetsSizeThresholds() {
        #expect(catalog.entries.count >= 2000)
        #expect(catalog.families.count >= 45)
    }

    @Test func everyCategoryIsPresent() {
        let present = Set(catalog.entries.map(\.category))
        #expect(present == Set(CatalogCategory.allCases))
    }

    @Test func everyBinomialIsInGRINOrExcepted() throws {
        let grin = try grinNames()
        let excepted = Set(catalog.exceptions.compactMap(\.name.binomial))
        for entry in catalog.entries {
            guard let binomial = entry.name.binomial else { continue }
            #expect(grin.contains(grinSpelling(binomial)) || excepted.contains(binomial),
                    "\(entry.scientificName) at \(entry.location)")
        }
    }

    @Test func everyExceptionIsAbsentFromGRINAndHasAReason() throws {
        let grin = try grinNames()
        for exception in catalog.exceptions {
            let binomial = try #require(exception.name.binomial)
            #expect(!grin.contains(grinSpelling(binomial)), "\(binomial) is in GRIN; drop the exception")
            #expect(exception.reason.count >= 20, "\(binomial) needs a specific reason")
        }
    }

    @Test func everyGenusHasAnAPGFamily() {
        let genera = Dictionary(uniqueKeysWithValues: catalog.genera.map { ($0.name, $0) })
        for entry in catalog.entries {
            let genus = genera[entry.name.genus]
            #expect(genus != nil, "\(entry.scientificName) has no genus row")
            #expect(genus?.family == entry.family)
            #expect(entry.family.hasSuffix("aceae"))
        }
    }

    /// Pre-APG families in the USDA table that APG IV merged wholesale into another family.
    static let apgRenames = [
        "Agavaceae": "Asparagaceae", "Aloaceae": "Asphodelaceae", "Asclepiadaceae": "Apocynaceae",
        "Bombacaceae": "Malvaceae", "Myrsinaceae": "Primulaceae",
    ]

    /// Liliaceae in the broad sense was split; its genera went to these families, decided genus by genus.
    static let liliaceaeSuccessors: Set = ["Amaryllidaceae", "Asparagaceae", "Asphodelaceae", "Colchicaceae"]

    /// Genera whose USDA family was reviewed and deliberately not followed (USDA family on the right).
    static let reviewedDisagreements = [
        "Alpinia": "Costaceae",             // Alpinia is a ginger: Zingiberaceae
        "Anacampseros": "Crassulaceae",     // APG IV: Anacampserotaceae
        "Aucuba": "Cornaceae",              // APG IV: Garryaceae
        "Calceolaria": "Scrophulariaceae",  // APG IV: Calceolariaceae
        "Clerodendrum": "Verbenaceae",      // APG IV: Lamiaceae
        "Nephrolepis": "Dryopteridaceae",   // PPG I: Nephrolepidaceae
        "Polypodium": "Grammitidaceae",     // PPG I: Polypodiaceae
        "Portulacaria": "Portulacaceae",    // APG IV: Didiereaceae
        "Saxifraga": "Rosaceae",            // Saxifragaceae
    ]

    @Test func familiesAgreeWithUSDAOnceNormalisedToAPG() throws {
        let text = try String(contentsOf: Self.packageRoot.appending(path: "Data/sources/genus_family_usda.csv"),
                              encoding: .utf8)
        var usda: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",", maxSplits: 1)
            guard fields.count == 2, let family = fields[1].split(separator: " ").first else { continue }
            usda[String(fields[0])] = String(family)
        }
        for genus in catalog.genera {
            guard let listed = usda[genus.name] else { continue }
            if let reviewed = Self.reviewedDisagreements[genus.name] {
                #expect(listed == reviewed, "\(genus.name): USDA now says \(listed); review the exception")
            } else if listed == "Liliaceae" {
                #expect(Self.liliaceaeSuccessors.contains(genus.family), "\(genus.name) at \(genus.location)")
            } else {
                #expect(genus.family == Self.apgRenames[listed, default: listed],
                        "\(genus.name) is \(genus.family) here but \(listed) in USDA PLANTS")
            }
        }
    }

    @Test func noDuplicateEntries() {
        let keys = catalog.entries.map {
            $0.scientificName.lowercased().replacingOccurrences(of: "×", with: "x")
        }
        #expect(Set(keys).count == keys.count)
    }

    @Test(arguments: [
        ("Monstera deliciosa", "Swiss Cheese Plant", CatalogCategory.tropicalFoliage),
        ("Dracaena trifasciata", "Snake Plant", .succulent),
        ("Dracaena angolensis", "Cylindrical Snake Plant", .succulent),
        ("Epipremnum aureum", "Pothos", .trailingClimbing),
        ("Ficus lyrata", "Fiddle-leaf Fig", .tropicalFoliage),
        ("Zamioculcas zamiifolia", "ZZ Plant", .tropicalFoliage),
        ("Chlorophytum comosum", "Spider Plant", .tropicalFoliage),
        ("Aloe vera", "Aloe Vera", .succulent),
        ("Tillandsia ionantha", "Sky Plant", .airPlant),
        ("Ocimum basilicum", "Basil", .herb),
        ("Howea forsteriana", "Kentia Palm", .palm),
        ("Nephrolepis exaltata", "Boston Fern", .fern),
        ("Phalaenopsis amabilis", "Moth Orchid", .orchid),
        ("Streptocarpus ionanthus", "African Violet", .floweringHouseplant),
        ("Schlumbergera truncata", "Thanksgiving Cactus", .cactus),
        ("Guzmania lingulata", "Scarlet Star", .bromeliad),
    ])
    func wellKnownPlantIsCatalogued(name: String, commonName: String, category: CatalogCategory) throws {
        let entry = try #require(catalog.entries.first { $0.scientificName == name })
        #expect(entry.commonNames.contains(commonName))
        #expect(entry.category == category)
    }
}
