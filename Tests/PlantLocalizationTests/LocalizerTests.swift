import Foundation
import Testing
@testable import PlantLocalization

@Suite struct LocalizerTests {
    /// The bundled tables load, and each keeps the rules a translation must keep: no key English lacks, the same
    /// placeholders as English, and exactly its language's plural categories.
    @Test(arguments: InterfaceLanguage.written)
    func bundledTablesKeepTheirRules(language: InterfaceLanguage) throws {
        let table = try StringTable.bundled(language)
        let english = try StringTable.bundled(.english)
        #expect(!table.entries.isEmpty)
        #expect(Set(table.entries.keys).subtracting(english.entries.keys).isEmpty, "keys English lacks")
        for (key, entry) in table.entries {
            #expect(entry.placeholders == english.entries[key]?.placeholders, "\(language.tag) \(key)")
            if case .plural(let forms) = entry {
                #expect(Set(forms.keys) == Set(PluralRules.categories(of: language)), "\(language.tag) \(key)")
            }
        }
    }

    @Test func textsPluralsAndTheEnglishFallback() throws {
        let french = try Localizer.bundled(.french)
        #expect(french.text("nav.care") == "Entretien")
        #expect(french.text("care.due.count", count: 0) == "0 tâche à faire")
        #expect(french.text("care.due.count", count: 1) == "1 tâche à faire")
        #expect(french.text("care.due.count", count: 3) == "3 tâches à faire")
        #expect(french.text("care.due.count", count: 2_000_000) == "2000000 de tâches à faire")
        let german = try Localizer.bundled(.german)
        #expect(german.text("identify.photos.count", count: 0) == "0 Fotos")
        #expect(german.text("identify.photos.count", count: 1) == "1 Foto")
        let spanish = try Localizer.bundled(.spanish)
        #expect(spanish.text("identify.photos.count", count: 0) == "0 fotos")
        // Not translated yet: English stands in, and the localizer says so.
        #expect(!french.isTranslated("identify.uncertain"))
        #expect(french.text("identify.uncertain", ["species": "Monstera deliciosa"])
            == "PlantGuide is not sure this is Monstera deliciosa: add a photo of a leaf or a flower.")
        #expect(french.missingKeys == ["identify.uncertain"])
        #expect(try Localizer.bundled(.english).missingKeys.isEmpty)
        // A key English lacks too shows its own name, so the bug is seen.
        #expect(french.text("no.such.key") == "no.such.key")
    }

    @Test func anEnglishStandInTakesEnglishPluralForms() {
        // French counts 0 as "one"; an English text standing in must still say "0 photos".
        let english = StringTable(language: .english, entries: ["n": .plural([.one: "{count} photo", .other: "{count} photos"])])
        let french = Localizer(table: StringTable(language: .french, entries: [:]), english: english)
        #expect(french.text("n", count: 0) == "0 photos")
        #expect(french.text("n", count: 1) == "1 photo")
    }

    @Test func placeholdersAreFilledOnceAndNeverFromAValue() {
        let english = StringTable(language: .english, entries: [
            "a": .text("{plant} needs water in {days} days ({unknown})"),
            "b": .plural([.one: "{count} plant in {room}", .other: "{count} plants in {room}"]),
        ])
        let localizer = Localizer(table: english, english: english)
        #expect(localizer.text("a", ["plant": "{days}", "days": "2"]) == "{days} needs water in 2 days ({unknown})")
        #expect(localizer.text("b", count: 2, ["room": "Kitchen"]) == "2 plants in Kitchen")
        #expect(localizer.text("b", ["room": "Hall"]) == "{count} plants in Hall")
    }

    @Test func malformedTablesAreRefusedWithAReason() {
        for (json, reason) in [
            (#"{"k": {"one": "x"}}"#, "other"),
            (#"{"k": {"several": "x", "other": "y"}}"#, "several"),
            (#"{"k": 3}"#, "cannot be read"),
            (#"["k"]"#, "cannot be read"),
        ] {
            #expect(throws: StringTableError.self) { _ = try StringTable(language: .german, json: Data(json.utf8)) }
            do {
                _ = try StringTable(language: .german, json: Data(json.utf8))
            } catch {
                #expect(error.description.contains(reason), "\(json): \(error.description)")
            }
        }
    }

    @Test func thePseudoLanguageMarksLengthensAndKeepsPlaceholders() throws {
        let pseudo = try Localizer.bundled(.pseudo)
        let english = try Localizer.bundled(.english)
        for key in ["nav.settings", "identify.uncertain"] {
            let text = pseudo.text(key, ["species": "X"])
            let plain = english.text(key, ["species": "X"])
            #expect(text.hasPrefix("⟦") && text.hasSuffix("⟧"), "\(text)")
            #expect(Double(text.count) >= Double(plain.count) * 1.3, "\(text)")
            #expect(text != plain)
        }
        #expect(pseudo.text("nav.settings").contains("Séttíñgs"))
        #expect(pseudo.text("care.due.count", count: 2).contains("2 tásks dúé"))
        #expect(pseudo.missingKeys.isEmpty)
    }
}
