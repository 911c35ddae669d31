import Foundation

/// One text of a string table: a sentence, or one sentence per plural category of the language.
public enum LocalizedEntry: Sendable, Hashable, Decodable {
    case text(String)
    case plural([PluralCategory: String])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
            return
        }
        let forms = try container.decode([String: String].self)
        var plural: [PluralCategory: String] = [:]
        for (name, text) in forms {
            guard let category = PluralCategory(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "“\(name)” is not a CLDR plural category (zero, one, two, few, many, other)"
                )
            }
            plural[category] = text
        }
        guard plural[.other] != nil else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a plural entry needs its “other” form")
        }
        self = .plural(plural)
    }

    /// The `{name}` placeholders the entry uses, in every form.
    public var placeholders: Set<String> {
        switch self {
        case .text(let text): Self.placeholders(in: text)
        case .plural(let forms): forms.values.reduce(into: []) { $0.formUnion(Self.placeholders(in: $1)) }
        }
    }

    static func placeholders(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { names.insert(String(name)) }
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}

/// Why a string table could not be read.
public struct StringTableError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for a person.
    public var description: String
}

/// The texts of one language, by key: PlantGuide's own JSON tables (`Resources/Localization/<tag>.json`), read the
/// same on Linux and Apple platforms (no `.lproj`, whose language Foundation on Linux fixes once per process).
public struct StringTable: Sendable {
    /// The language the texts are written in.
    public let language: InterfaceLanguage
    /// The texts by key.
    public let entries: [String: LocalizedEntry]

    /// A table from its entries.
    public init(language: InterfaceLanguage, entries: [String: LocalizedEntry]) {
        self.language = language
        self.entries = entries
    }

    /// A table from a JSON object of keys and entries.
    public init(language: InterfaceLanguage, json: Data) throws(StringTableError) {
        do {
            self.init(language: language, entries: try JSONDecoder().decode([String: LocalizedEntry].self, from: json))
        } catch {
            throw StringTableError(description: "The \(language.tag) string table cannot be read: \(error)")
        }
    }

    /// The bundled table of a written language (the pseudo-language is made from English: ``pseudo(from:)``).
    public static func bundled(_ language: InterfaceLanguage) throws(StringTableError) -> StringTable {
        if language == .pseudo { return pseudo(from: try bundled(.english)) }
        guard let url = Bundle.module.url(forResource: language.tag, withExtension: "json", subdirectory: "Localization") else {
            throw StringTableError(description: "The \(language.tag) string table is missing from PlantGuide's resources.")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StringTableError(description: "The \(language.tag) string table cannot be read: \(error.localizedDescription)")
        }
        return try StringTable(language: language, json: data)
    }

    /// The pseudo-language: every English text with its letters accented, padded with "·" to about 140 % of its length and
    /// wrapped in ⟦ ⟧, so an untranslated or clipped text stands out; `{placeholders}` stay as they are.
    public static func pseudo(from english: StringTable) -> StringTable {
        let entries = english.entries.mapValues { entry -> LocalizedEntry in
            switch entry {
            case .text(let text): .text(pseudoText(text))
            case .plural(let forms): .plural(forms.mapValues(pseudoText))
            }
        }
        return StringTable(language: .pseudo, entries: entries)
    }

    static func pseudoText(_ text: String) -> String {
        var out = ""
        var inPlaceholder = false
        for character in text {
            if character == "{" { inPlaceholder = true }
            out.append(inPlaceholder ? character : (accented[character] ?? character))
            if character == "}" { inPlaceholder = false }
        }
        let padding = String(repeating: "·", count: max(1, (text.count * 2 + 4) / 5))
        return "⟦" + out + padding + "⟧"
    }

    private static let accented: [Character: Character] = [
        "a": "á", "c": "ç", "e": "é", "i": "í", "n": "ñ", "o": "ó", "u": "ú", "y": "ý",
        "A": "Å", "C": "Ç", "E": "É", "I": "Í", "N": "Ñ", "O": "Ö", "U": "Ü", "Y": "Ý",
    ]
}

/// Texts in one language, English where a key is not translated yet: what a request or a command run carries.
public struct Localizer: Sendable {
    /// The language asked for.
    public let language: InterfaceLanguage
    private let table: StringTable
    private let english: StringTable

    /// A localizer over `table`, falling back to `english`.
    public init(table: StringTable, english: StringTable) {
        language = table.language
        self.table = table
        self.english = english
    }

    /// The bundled texts of `language`.
    public static func bundled(_ language: InterfaceLanguage) throws(StringTableError) -> Localizer {
        let english = try StringTable.bundled(.english)
        return Localizer(table: language == .english ? english : try StringTable.bundled(language), english: english)
    }

    /// The text of `key` in the language, else in English (``isTranslated(_:)`` says which), with `{name}`
    /// placeholders replaced by `arguments`, and `count` choosing the plural form (its category in the language the
    /// text is in) and filling `{count}`. A key English lacks too is a bug: its own name comes back, so it shows.
    public func text(_ key: String, count: Int? = nil, _ arguments: [String: String] = [:]) -> String {
        let (entry, entryLanguage) = table.entries[key].map { ($0, language) } ?? english.entries[key].map { ($0, .english) } ?? (nil, language)
        guard let entry else { return key }
        var arguments = arguments
        let template: String
        switch entry {
        case .text(let text):
            template = text
        case .plural(let forms):
            let category = count.map { PluralRules.category(of: entryLanguage, integer: $0) } ?? .other
            template = forms[category] ?? forms[.other] ?? key
        }
        if let count, arguments["count"] == nil { arguments["count"] = String(count) }
        return Self.fill(template, arguments)
    }

    /// Whether `key` has a text of its own in this language (not English standing in).
    public func isTranslated(_ key: String) -> Bool { table.entries[key] != nil }

    /// The keys English has that this language lacks, sorted: what is left to translate.
    public var missingKeys: [String] { english.entries.keys.filter { table.entries[$0] == nil }.sorted() }

    /// `template` with each `{name}` given in `arguments` replaced, in one pass: a value that itself contains
    /// `{name}` (a plant called "{count}") is inserted as it is, never filled in again.
    static func fill(_ template: String, _ arguments: [String: String]) -> String {
        guard !arguments.isEmpty, template.contains("{") else { return template }
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"), let value = arguments[String(rest[rest.index(after: open)..<close])]
            else {
                out.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
