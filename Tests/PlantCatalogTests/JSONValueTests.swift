import Foundation
@testable import PlantCatalog
import Testing

/// The catalog's own JSON reader must agree with Foundation on valid input and refuse bad input.
@Suite struct JSONValueTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5e2, true, false, null], "b": {"c": "d\"\\\/\n\u00e9\ud83c\udf3f"}} "#)
        #expect(value["a"] == .array([.number(1), .number(-250), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"]?.string == "d\"\\/\né🌿")
    }

    @Test func agreesWithFoundationOnTheBundledCatalog() throws {
        let url = try #require(Bundle.module.url(forResource: "houseplants", withExtension: "json"))
        let data = try Data(contentsOf: url)
        let ours = try JSONValue.parse(Array(data))
        let theirs = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let plants = try #require(theirs["plants"] as? [[String: Any]])
        let ourPlants = try #require(ours["plants"]?.array)
        #expect(ourPlants.count == plants.count)
        for (mine, reference) in zip(ourPlants, plants) {
            #expect(mine["scientific_name"]?.string == reference["scientific_name"] as? String)
            #expect(mine["common_names"]?.array?.compactMap(\.string) == reference["common_names"] as? [String])
        }
    }

    @Test(arguments: [
        "", "{", "[1,", "{\"a\" 1}", "{\"a\": tru}", "\"abc", "[1] x", "{\"a\": \"\\q\"}", "\"\\ud800\"",
        "[\"tab\there\"]", "-", "{,}", String(repeating: "[", count: 10_000),
    ])
    func refusesMalformedInput(text: String) {
        #expect(throws: JSONValue.SyntaxError.self) { try parse(text) }
    }
}
