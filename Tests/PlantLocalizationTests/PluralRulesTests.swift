import Testing
@testable import PlantLocalization

/// Every sample CLDR gives for the four languages' cardinal rules (`plurals.xml`, the `@integer` and `@decimal` lists;
/// "~" ranges written out, compact "c" samples left out: PlantGuide writes no compact numbers).
@Suite struct PluralRulesTests {
    static let integers: [(InterfaceLanguage, PluralCategory, [Int])] = [
        (.english, .one, [1]),
        (.english, .other, [0] + Array(2...16) + [100, 1000, 10000, 100_000, 1_000_000]),
        (.german, .one, [1]),
        (.german, .other, [0] + Array(2...16) + [100, 1000, 10000, 100_000, 1_000_000]),
        (.french, .one, [0, 1]),
        (.french, .many, [1_000_000, 2_000_000, 7_000_000]),
        (.french, .other, Array(2...17) + [100, 1000, 10000, 100_000, 1_000_001, 1_500_000]),
        (.spanish, .one, [1]),
        (.spanish, .many, [1_000_000, 3_000_000]),
        (.spanish, .other, [0] + Array(2...16) + [100, 1000, 10000, 100_000, 999_999]),
    ]

    static let decimals: [(InterfaceLanguage, PluralCategory, [String])] = [
        (.english, .other, ["0.0", "0.5", "1.0", "1.5", "10.0", "100.0", "1000.0", "1000000.0"]),
        (.german, .other, ["0.0", "1.0", "1.5", "10.0", "1000000.0"]),
        (.french, .one, ["0.0", "0.5", "1.0", "1.5"]),
        (.french, .other, ["2.0", "2.5", "3.5", "10.0", "100.0", "1000.0", "1000000.0"]),
        (.spanish, .one, ["1.0", "1.00", "1.000", "1.0000"]),
        (.spanish, .other, ["0.0", "0.9", "1.1", "1.6", "10.0", "100.0", "1000000.0"]),
    ]

    @Test func everyIntegerSampleHasItsCategory() {
        for (language, category, samples) in Self.integers {
            for sample in samples {
                #expect(PluralRules.category(of: language, integer: sample) == category, "\(language.tag) \(sample)")
                #expect(PluralRules.category(of: language, written: String(sample)) == category, "\(language.tag) \"\(sample)\"")
            }
        }
    }

    @Test func everyDecimalSampleHasItsCategory() {
        for (language, category, samples) in Self.decimals {
            for sample in samples {
                #expect(PluralRules.category(of: language, written: sample) == category, "\(language.tag) \(sample)")
            }
        }
    }

    @Test func signsHugeNumbersAndNonNumbers() {
        #expect(PluralRules.category(of: .english, integer: -1) == .one)
        #expect(PluralRules.category(of: .french, written: "-1.5") == .one)
        #expect(PluralRules.category(of: .spanish, written: "123456789012345678901234567890") == .other)
        #expect(PluralRules.category(of: .english, integer: Int.min) == .other)
        for text in ["", "1.", ".5", "1,5", "1e6", "abc", "--1", "1.2.3", "١"] {
            #expect(PluralRules.category(of: .english, written: text) == nil, "\(text)")
        }
    }

    @Test func eachLanguageNamesItsCategories() {
        #expect(PluralRules.categories(of: .english) == [.one, .other])
        #expect(PluralRules.categories(of: .german) == [.one, .other])
        #expect(PluralRules.categories(of: .french) == [.one, .many, .other])
        #expect(PluralRules.categories(of: .spanish) == [.one, .many, .other])
        // Every category a rule gives for the samples is one the language names.
        for (language, category, _) in Self.integers {
            #expect(PluralRules.categories(of: language).contains(category))
        }
    }
}
