import Foundation
import PlantGuideTestSupport
import Testing

/// A command-line runner with the fixture catalog and a pinned clock, for collection and care tests.
func collectionRunner(now: String = "2026-06-01T09:00:00Z", hemisphere: String = "north") throws -> CommandLineRunner {
    var runner = try CommandLineRunner()
    let catalog = runner.home.appendingPathComponent("fixture-catalog.json")
    try CatalogFixture.write(to: catalog)
    runner.environment["PLANTGUIDE_CATALOG"] = catalog.path
    runner.environment["PLANTGUIDE_NOW"] = now
    runner.environment["PLANTGUIDE_HEMISPHERE"] = hemisphere
    runner.environment["TZ"] = "UTC"
    return runner
}

extension CommandLineRunner {
    /// Runs and parses standard output as a JSON object, recording the output when it fails.
    func jsonObject(_ arguments: [String]) throws -> [String: Any] {
        let outcome = try run(arguments)
        #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        return try #require(try outcome.json() as? [String: Any], "\(arguments): \(outcome.stdout)")
    }

    /// Runs and parses standard output as a JSON array.
    func jsonArray(_ arguments: [String]) throws -> [[String: Any]] {
        let outcome = try run(arguments)
        #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        return try #require(try outcome.json() as? [[String: Any]], "\(arguments): \(outcome.stdout)")
    }
}

/// A real PNG that differs per `seed`, with a fake GPS position in a metadata chunk.
func fakePhoto(seed: UInt8) -> Data {
    ImageFixture.png(width: 300, height: 200, seed: seed, text: ("GPSPosition", "52.5200 N, 13.4050 E"))
}
