import PlantGuideCore
import Testing

/// Text limits count what the OpenAPI document's `maxLength` counts: Unicode code points.
@Suite struct InputLimitsTests {
    @Test func limitsCountCodePointsAsJSONSchemaDoes() {
        // One letter on screen with 6 combining marks: 7 code points.
        let piled = "o" + String(repeating: "\u{0336}", count: 6)
        #expect(piled.count == 1)
        #expect(InputLimits.exceeds(piled, characters: 6))
        #expect(!InputLimits.exceeds(piled, characters: 7))
        // Letters outside ASCII are one code point each, however many bytes.
        let accented = String(repeating: "é", count: 10)
        #expect(!InputLimits.exceeds(accented, characters: 10))
        #expect(InputLimits.exceeds(accented, characters: 9))
        #expect(!InputLimits.exceeds("", characters: 0))
    }
}
