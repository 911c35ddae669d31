import Foundation
import Testing
@testable import PlantLocalization

/// Which keys the code asks for and which each language has, against `missing-keys-baseline.json`: a key the code asks
/// for is in English; a translation lacks no key the baseline does not list; the baseline lists nothing that is done.
@Suite struct KeyCoverageTests {
    private struct Baseline: Decodable {
        var missing: [String: [String]]
        var unused: [String]
    }

    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func baseline() throws -> Baseline {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("missing-keys-baseline.json")
        return try JSONDecoder().decode(Baseline.self, from: Data(contentsOf: url))
    }

    /// Every Swift file under `Sources`.
    private static func sources() throws -> [(path: String, text: String)] {
        let root = packageRoot.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            files.append((String(url.path.dropFirst(packageRoot.path.count + 1)), try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    /// The keys a text passes to the localizer as literals: `text("a.b"`, `text(words, "a.b"`, `isTranslated("a.b"`,
    /// `unlessTranslated: "a.b"`.
    static func keysAskedFor(in text: String) -> Set<String> {
        let pattern = /(?:\.text\(|text\(words, |isTranslated\(|unlessTranslated: )"([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)"/
        return Set(text.matches(of: pattern).map { String($0.output.1) })
    }

    /// The namespaces of the tables' keys (`home` of `home.title`).
    static func namespaces(_ table: StringTable) -> Set<String> {
        Set(table.entries.keys.compactMap { $0.split(separator: ".").first.map(String.init) })
    }

    /// The files whose every key-like literal is a key: the web pages and the command line, where keys also reach
    /// the localizer through helpers (`row("home.row.browse", …)`).
    static func isKeyedCode(_ path: String) -> Bool {
        path.hasPrefix("Sources/PlantGuideServer/Views/") || path.hasPrefix("Sources/PlantGuideCLI/")
    }

    /// Prefixes of keys the code builds (`"nav.\(tab)"`): their keys count as used.
    static let builtPrefixes = ["nav.", "care.task.", "cli.care.task."]

    @Test func theScanFindsKeysInEachForm() {
        let text = #"words.text("a.b") l.text("care.due.count", count: 2) x.isTranslated("c.dE") english(w, unlessTranslated: "d.e.f") text(key)"#
        #expect(Self.keysAskedFor(in: text) == ["a.b", "care.due.count", "c.dE", "d.e.f"])
    }

    @Test func everyKeyTheCodeAsksForIsInEnglish() throws {
        let english = try StringTable.bundled(.english)
        var asked = 0
        for (path, text) in try Self.sources() {
            for key in Self.keysAskedFor(in: text) {
                asked += 1
                #expect(english.entries[key] != nil, "\(path) asks for \(key), which en.json lacks")
            }
        }
        #expect(asked >= 25, "the scan found only \(asked) keys: is it still reading Sources?")
        // In the pages and the command line, any literal in a table's namespace is a key, however it is passed.
        let namespaces = Self.namespaces(english)
        let literal = /"([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)"/
        for (path, text) in try Self.sources() where Self.isKeyedCode(path) {
            for match in text.matches(of: literal) {
                let key = String(match.output.1)
                guard let namespace = key.split(separator: ".").first, namespaces.contains(String(namespace)) else { continue }
                #expect(english.entries[key] != nil, "\(path) has \(key), which en.json lacks")
            }
        }
    }

    /// Keys built from a name (`care.task.\(task)`) exist for every name.
    @Test(arguments: InterfaceLanguage.written)
    func everyBuiltKeyExists(language: InterfaceLanguage) throws {
        let table = try StringTable.bundled(language)
        for task in ["water", "fertilize", "repot", "mist", "prune"] {
            #expect(table.entries["care.task.\(task)"] != nil && table.entries["cli.care.task.\(task)"] != nil, "\(language.tag) \(task)")
        }
        for tab in ["identify", "browse", "collection", "care", "settings"] {
            #expect(table.entries["nav.\(tab)"] != nil, "\(language.tag) \(tab)")
        }
    }

    @Test func keysNoCodeUsesAreOnlyThoseTheBaselineLists() throws {
        let english = try StringTable.bundled(.english)
        let allText = try Self.sources().map(\.text).joined(separator: "\n")
        let unused = english.entries.keys.filter { key in
            !allText.contains("\"\(key)\"") && !Self.builtPrefixes.contains { key.hasPrefix($0) }
        }
        let listed = Set(try Self.baseline().unused)
        for key in unused where !listed.contains(key) {
            Issue.record("en.json has \(key), which no code uses: use it or remove it")
        }
        for key in listed where !unused.contains(key) {
            Issue.record("\(key) is used now (or gone): remove it from missing-keys-baseline.json's unused")
        }
    }

    @Test(arguments: InterfaceLanguage.written.filter { $0 != .english })
    func eachTranslationLacksOnlyWhatTheBaselineLists(language: InterfaceLanguage) throws {
        let english = try StringTable.bundled(.english)
        let table = try StringTable.bundled(language)
        let missing = Set(english.entries.keys).subtracting(table.entries.keys)
        let listed = Set(try Self.baseline().missing[language.tag] ?? [])
        for key in missing.subtracting(listed).sorted() {
            Issue.record("\(language.tag).json lacks \(key): translate it (the baseline may only shrink)")
        }
        for key in listed.subtracting(missing).sorted() {
            Issue.record("\(language.tag).json has \(key) now: remove it from missing-keys-baseline.json")
        }
        // The count the issue closes at 0, shown in the test log.
        print("\(language.tag): \(missing.count) of \(english.entries.count) keys missing")
    }
}
