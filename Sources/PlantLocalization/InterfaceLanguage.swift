import Foundation

/// A language PlantGuide's own texts are written in. English is the source and every other language's fallback.
public enum InterfaceLanguage: String, Sendable, Hashable, CaseIterable, Codable {
    case english = "en"
    case french = "fr"
    case german = "de"
    case spanish = "es"
    /// A pseudo-language made from English (accented, about 40 % longer, wrapped in ⟦ ⟧) that shows untranslated and
    /// overflowing text in tests; offered only where `PLANTGUIDE_PSEUDO_LOCALE=1`.
    case pseudo = "en-XA"

    /// The languages people choose from.
    public static let written: [InterfaceLanguage] = [.english, .french, .german, .spanish]

    /// The BCP 47 tag, for `<html lang>` and `Content-Language`.
    public var tag: String { rawValue }

    /// The language's name in itself, as a list of languages to choose from shows it ("Français").
    public var endonym: String {
        switch self {
        case .english: "English"
        case .french: "Français"
        case .german: "Deutsch"
        case .spanish: "Español"
        case .pseudo: "Ƥšéúđó"
        }
    }

    /// The language a tag such as `fr-CA`, `de_AT.UTF-8` or `en-XA` asks for, when PlantGuide writes it: the pseudo-
    /// language only when `pseudoAllowed`, else by the primary subtag alone.
    public init?(tag: String, pseudoAllowed: Bool = false) {
        let cleaned = tag.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-").lowercased()
        if cleaned == InterfaceLanguage.pseudo.rawValue.lowercased() {
            guard pseudoAllowed else { return nil }
            self = .pseudo
            return
        }
        let primary = cleaned.split(separator: "-", maxSplits: 1).first.map(String.init) ?? ""
        guard let language = Self.written.first(where: { $0.rawValue == primary }) else { return nil }
        self = language
    }

    /// The language an HTTP `Accept-Language` header prefers among those PlantGuide writes (RFC 9110 §12.5.4): the
    /// highest `q` first, the header's order among equals, `q=0` never, `*` as English. `nil` when nothing in the
    /// header is written here (the caller then uses English).
    public static func preferred(acceptLanguage header: String, pseudoAllowed: Bool = false) -> InterfaceLanguage? {
        preferredRange(acceptLanguage: header, pseudoAllowed: pseudoAllowed)?.language
    }

    /// The language ``preferred(acceptLanguage:pseudoAllowed:)`` chooses, with the header's range that chose it
    /// (`en-US` for `de;q=0.5, en-US`), whose region says which units are usual.
    public static func preferredRange(
        acceptLanguage header: String, pseudoAllowed: Bool = false
    ) -> (language: InterfaceLanguage, range: String)? {
        var ranked: [(language: InterfaceLanguage, range: String, quality: Double, position: Int)] = []
        var refused: Set<InterfaceLanguage> = []
        for (position, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let range = parts.first, !range.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                // RFC 9110's qvalue: 0 to 1 with at most three decimals; anything else makes the item worthless.
                guard let value = Double(pair[1]), (0...1).contains(value), pair[1].count <= 5 else { quality = 0; break }
                quality = value
            }
            let language = range == "*" ? InterfaceLanguage.english : InterfaceLanguage(tag: range, pseudoAllowed: pseudoAllowed)
            guard let language else { continue }
            if quality == 0 {
                refused.insert(language)
            } else {
                ranked.append((language, range, quality, position))
            }
        }
        return ranked.filter { !refused.contains($0.language) }
            .sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.position < $1.position }
            .first.map { ($0.language, $0.range) }
    }

    /// The language of a command line's environment: the first non-empty of `LC_ALL`, `LC_MESSAGES` and `LANG`
    /// (POSIX's order), e.g. `fr_CA.UTF-8@euro` → French. `C`, `POSIX` and languages not written here give English.
    /// (Foundation's `Locale.current` on Linux does not read these variables.)
    public static func fromEnvironment(_ environment: [String: String], pseudoAllowed: Bool = false) -> InterfaceLanguage {
        guard let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty })
        else { return .english }
        // Drop the codeset and modifier: language[_territory][.codeset][@modifier].
        let name = value.split(separator: "@", maxSplits: 1).first.map(String.init) ?? value
        let bare = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
        return InterfaceLanguage(tag: bare, pseudoAllowed: pseudoAllowed) ?? .english
    }
}
