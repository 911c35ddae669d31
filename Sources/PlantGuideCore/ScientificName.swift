import Foundation

/// A plant name taken apart: `Philodendron hederaceum 'Brasil'` → genus `Philodendron`, epithet
/// `hederaceum`, cultivar `Brasil`. Authorship (`Lactuca virosa L.`) and hybrid signs (`×`, or `x`/`X` as some sources write it) are dropped.
public struct ScientificName: Sendable, Hashable {
    /// The genus, capitalised as written.
    public var genus: String
    /// The specific epithet (lower case), if the name has one; hybrid epithets keep no `×`.
    public var epithet: String?
    /// The cultivar name without quotes, if any.
    public var cultivar: String?

    /// Parses a name as found in catalogs, model labels and API answers.
    public init(parsing text: String) {
        var cultivar: String?
        var rest = Substring(text)
        if let open = text.firstIndex(where: { $0 == "'" || $0 == "‘" || $0 == "\"" }) {
            let afterOpen = text.index(after: open)
            let close = text[afterOpen...].firstIndex(where: { $0 == "'" || $0 == "’" || $0 == "\"" }) ?? text.endIndex
            let inner = text[afterOpen..<close].trimmingCharacters(in: .whitespaces)
            cultivar = inner.isEmpty ? nil : inner
            rest = text[..<open]
        }
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
            .filter { $0 != "×" && $0 != "x" && $0 != "X" }
        genus = words.first.map(String.init) ?? ""
        if words.count > 1, let first = words[1].first, first.isLowercase, !words[1].hasSuffix(".") {
            epithet = String(words[1])
        } else {
            epithet = nil
        }
        self.cultivar = cultivar
    }

    /// Genus and epithet, e.g. `Monstera deliciosa`; the genus alone when there is no epithet.
    public var binomial: String {
        epithet.map { "\(genus) \($0)" } ?? genus
    }
}
