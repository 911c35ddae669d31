extension Localizer {
    /// The bundled texts of `language`, read once per process and shared: what a server hands each request. A table
    /// that cannot be read (a damaged install) leaves English standing in for that language, and an unreadable English
    /// table leaves the keys themselves, so a page still renders; the tests read every table.
    public static func shared(_ language: InterfaceLanguage) -> Localizer {
        loaded[language] ?? loaded[.english] ?? Localizer(table: emptyEnglish, english: emptyEnglish)
    }

    private static let emptyEnglish = StringTable(language: .english, entries: [:])

    private static let loaded: [InterfaceLanguage: Localizer] = {
        guard let english = try? StringTable.bundled(.english) else { return [:] }
        var all: [InterfaceLanguage: Localizer] = [:]
        for language in InterfaceLanguage.allCases {
            let table: StringTable? = switch language {
            case .english: english
            case .pseudo: StringTable.pseudo(from: english)
            default: try? StringTable.bundled(language)
            }
            all[language] = Localizer(table: table ?? english, english: english)
        }
        return all
    }()
}
