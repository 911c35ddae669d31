import Foundation
import PlantGuideCore
import Testing

@Suite struct DataDirectoryTests {
    let home = URL(fileURLWithPath: "/home/ada")

    @Test func plantguideHomeWins() {
        let directory = DataDirectory.resolve(
            environment: ["PLANTGUIDE_HOME": "/srv/plants", "XDG_DATA_HOME": "/xdg"], home: home
        )
        #expect(directory.url.path == "/srv/plants")
    }

    @Test func xdgDataHomeIsNext() {
        let directory = DataDirectory.resolve(environment: ["XDG_DATA_HOME": "/xdg", "PLANTGUIDE_HOME": ""], home: home)
        #expect(directory.url.path == "/xdg/plantguide")
    }

    @Test func homeFallback() {
        #expect(DataDirectory.resolve(environment: [:], home: home).url.path == "/home/ada/.local/share/plantguide")
    }

    @Test func createMakesAPrivateFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = DataDirectory(url: root.appendingPathComponent("a/b"))
        try directory.create()
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.url.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        #expect(directory.appending("collection.sqlite").lastPathComponent == "collection.sqlite")
    }
}

@Suite struct PlantCategoryTests {
    @Test(arguments: [
        ("cactus", PlantCategory.cactus), ("Tropical Foliage", .tropicalFoliage), ("tropical-foliage", .tropicalFoliage),
        ("trailing/climbing", .trailingClimbing), ("TRAILING_CLIMBING", .trailingClimbing), ("air plant", .airPlant),
    ])
    func parsesWhatPeopleType(input: String, expected: PlantCategory) {
        #expect(PlantCategory(userInput: input) == expected)
    }

    @Test(arguments: ["ferns", "", "palmtree"])
    func rejectsUnknown(input: String) {
        #expect(PlantCategory(userInput: input) == nil)
    }

    @Test func argumentNamesRoundTrip() {
        for category in PlantCategory.allCases {
            #expect(PlantCategory(userInput: category.argumentName) == category)
        }
        #expect(PlantCategory.allCases.count == 11)
    }
}

@Suite struct ScientificNameTests {
    @Test func cultivar() {
        let name = ScientificName(parsing: "Philodendron hederaceum 'Brasil'")
        #expect(name.genus == "Philodendron")
        #expect(name.epithet == "hederaceum")
        #expect(name.cultivar == "Brasil")
        #expect(name.binomial == "Philodendron hederaceum")
    }

    @Test func genusCultivar() {
        let name = ScientificName(parsing: "Philodendron 'Birkin'")
        #expect(name.epithet == nil)
        #expect(name.cultivar == "Birkin")
        #expect(name.binomial == "Philodendron")
    }

    @Test(arguments: [
        ("Lactuca virosa L.", "Lactuca virosa"),
        ("Nephrolepis cordifolia (L.) C. Presl", "Nephrolepis cordifolia"),
        ("Mentha × piperita", "Mentha piperita"),
        ("Acacia senegalensis (Houtt.) Roberty", "Acacia senegalensis"),
        ("Monstera", "Monstera"),
    ])
    func authorshipAndHybridSignsAreDropped(text: String, binomial: String) {
        #expect(ScientificName(parsing: text).binomial == binomial)
    }

    @Test func curlyQuotes() {
        #expect(ScientificName(parsing: "Epipremnum aureum ‘Marble Queen’").cultivar == "Marble Queen")
    }
}
