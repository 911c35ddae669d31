import Testing
@testable import PlantLocalization

@Suite struct LanguageChoiceTests {
    @Test func acceptLanguagePicksTheBestWrittenLanguage() {
        let cases: [(String, InterfaceLanguage?)] = [
            ("fr-CA,fr;q=0.9,en;q=0.8", .french),
            ("de-AT", .german),
            ("ES", .spanish),
            ("it, de;q=0.5", .german),            // Italian is not written: the next one is
            ("en;q=0.5, fr;q=0.7", .french),      // by quality, not by order
            ("fr;q=0.7, de;q=0.7", .french),      // equals: the header's order
            ("fr;q=0, de;q=0.1", .german),        // q=0: never
            ("fr-CA;q=0.8, fr;q=0", nil),         // a language refused in one form is refused in all
            ("*", .english),
            ("ja, *;q=0.1", .english),
            ("pt-BR, ja", nil),
            ("", nil),
            (";;;,,", nil),
            ("fr;q=2", nil),                      // outside 0…1: worthless
            ("fr;q=abc, de", .german),
            ("fr;q=0.1234", nil),                 // more than three decimals
            ("en-XA", nil),                       // the pseudo-language only where allowed
        ]
        for (header, expected) in cases {
            #expect(InterfaceLanguage.preferred(acceptLanguage: header) == expected, "\(header)")
        }
        #expect(InterfaceLanguage.preferred(acceptLanguage: "en-XA, fr", pseudoAllowed: true) == .pseudo)
    }

    @Test func theEnvironmentIsReadInPOSIXOrder() {
        let cases: [([String: String], InterfaceLanguage)] = [
            ([:], .english),
            (["LANG": "fr_FR.UTF-8"], .french),
            (["LANG": "fr_FR.UTF-8", "LC_MESSAGES": "de_DE.UTF-8"], .german),
            (["LANG": "fr_FR.UTF-8", "LC_MESSAGES": "de_DE.UTF-8", "LC_ALL": "es_ES.UTF-8"], .spanish),
            (["LC_ALL": "", "LANG": "de_CH"], .german),           // empty counts as unset
            (["LANG": "fr_CA.UTF-8@euro"], .french),
            (["LANG": "C"], .english),
            (["LANG": "POSIX"], .english),
            (["LANG": "C.UTF-8", "LC_MESSAGES": "fr_FR"], .french),
            (["LC_ALL": "pt_BR.UTF-8", "LANG": "fr_FR"], .english),  // LC_ALL wins even when it is not written here
            (["LANG": "en_XA"], .english),
        ]
        for (environment, expected) in cases {
            #expect(InterfaceLanguage.fromEnvironment(environment) == expected, "\(environment)")
        }
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "en_XA"], pseudoAllowed: true) == .pseudo)
    }
}
