import Foundation

/// A CLDR plural category: which form of a counted phrase a number takes in a language.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable, Codable {
    case zero, one, two, few, many, other
}

/// The CLDR cardinal plural rules of PlantGuide's languages, written by hand from `common/supplemental/plurals.xml`
/// (Foundation has no plural API on Linux, and `.stringsdict` plurals are not expanded there):
///
/// | language | one | many |
/// |---|---|---|
/// | en, de | `i = 1 and v = 0` | — |
/// | fr | `i = 0,1` | `e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5` |
/// | es | `n = 1` | as fr |
///
/// Everything else is `other`. PlantGuide writes no compact numbers ("1,2 M"), so the exponent `e` is always 0.
public enum PluralRules {
    /// The categories `language` distinguishes, in CLDR's order: what a plural entry of its table must give.
    public static func categories(of language: InterfaceLanguage) -> [PluralCategory] {
        switch language {
        case .english, .german, .pseudo: [.one, .other]
        case .french, .spanish: [.one, .many, .other]
        }
    }

    /// The category of a whole number.
    public static func category(of language: InterfaceLanguage, integer: Int) -> PluralCategory {
        category(of: language, PluralOperands(integer: integer))
    }

    /// The category of a number as it is written, e.g. `"1.5"` or `"1.0"` (the fraction digits shown matter:
    /// "1 day" but "1.0 days" in English). `nil` when `written` is not a plain decimal number.
    public static func category(of language: InterfaceLanguage, written: String) -> PluralCategory? {
        PluralOperands(written: written).map { category(of: language, $0) }
    }

    static func category(of language: InterfaceLanguage, _ operands: PluralOperands) -> PluralCategory {
        let millions = operands.i != 0 && operands.i % 1_000_000 == 0 && operands.v == 0
        switch language {
        case .english, .german, .pseudo:
            return operands.i == 1 && operands.v == 0 ? .one : .other
        case .french:
            if operands.i == 0 || operands.i == 1 { return .one }
            return millions ? .many : .other
        case .spanish:
            if operands.nIsOne { return .one }
            return millions ? .many : .other
        }
    }
}

/// The CLDR operands of a number: `i` its integer digits, `v` how many fraction digits are shown, and whether `n` (its
/// absolute value) is exactly 1.
struct PluralOperands: Equatable {
    var i: Int
    var v: Int
    var nIsOne: Bool

    init(integer: Int) {
        i = integer.magnitude > UInt(Int.max) ? Int.max : Int(integer.magnitude)
        v = 0
        nIsOne = i == 1
    }

    /// The operands of `"-12.50"` and the like: an optional sign, digits, optionally a point and more digits.
    init?(written: String) {
        var text = Substring(written)
        if text.first == "-" || text.first == "+" { text = text.dropFirst() }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        // Beyond Int's range only "is it 0, 1, or a multiple of a million" matters, and such a number is none of them.
        i = Int(whole) ?? Int.max
        v = fraction.count
        nIsOne = i == 1 && fraction.allSatisfy { $0 == "0" }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
