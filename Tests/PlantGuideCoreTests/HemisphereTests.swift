import PlantGuideCore
import Testing

@Suite struct HemisphereTests {
    @Test(arguments: [
        ([:], Hemisphere.north), (["PLANTGUIDE_HEMISPHERE": ""], .north), (["PLANTGUIDE_HEMISPHERE": "south"], .south),
        (["PLANTGUIDE_HEMISPHERE": "South"], .south), (["PLANTGUIDE_HEMISPHERE": "NORTH"], .north),
    ] as [([String: String], Hemisphere?)])
    func theEnvironmentNamesTheHemisphereNorthByDefault(environment: [String: String], expected: Hemisphere?) {
        #expect(Hemisphere(environment: environment) == expected)
    }

    @Test(arguments: ["equator", "s", "southern"])
    func anythingElseIsRefused(value: String) {
        #expect(Hemisphere(environment: [Hemisphere.environmentVariable: value]) == nil)
    }
}
