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

/// A small valid PNG header followed by bytes that differ per `seed`, good enough for the photo store.
func fakePhoto(seed: UInt8) -> Data {
    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, seed, seed &+ 1, seed &+ 2])
}
