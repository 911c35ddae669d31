import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantNetAPI
import Testing

@Suite struct IdentificationCacheTests {
    private func answer(_ name: String) -> PlantNetAnswer {
        PlantNetAnswer(
            identification: Identification(
                source: .plantNetAPI, predictions: [SpeciesPrediction(rank: 1, scientificName: name, confidence: 0.9)],
                uncertain: false, date: Date(timeIntervalSince1970: 1_800_000_000)
            ),
            notAPlant: false, remainingRequests: 400, secondsUntilReset: 60
        )
    }

    private func key(_ seed: UInt8, organ: PlantNetOrgan = .auto, hash: UInt64? = nil, project: String = "all") -> CacheKey {
        CacheKey(images: [image(seed, organ: organ, perceptualHash: hash)], options: PlantNetOptions(project: project))
    }

    @Test func hitIsMarkedAsCacheAndSurvivesARestart() throws {
        let file = try temporaryFolder().appendingPathComponent("cache.json")
        let cache = IdentificationCache(file: file)
        #expect(cache.lookup(key(1)) == nil)
        try cache.store(answer("Monstera deliciosa"), for: key(1))
        let hit = try #require(IdentificationCache(file: file).lookup(key(1)))
        #expect(hit.identification.source == .cache)
        #expect(hit.identification.best?.scientificName == "Monstera deliciosa")
        #expect(hit.remainingRequests == nil)
        #expect(IdentificationCache(file: file).lookup(key(1, organ: .leaf)) == nil)
        #expect(IdentificationCache(file: file).lookup(key(1, project: "weurope")) == nil)
    }

    @Test func twoProcessesWritingKeepBothAnswers() throws {
        let file = try temporaryFolder().appendingPathComponent("cache.json")
        let first = IdentificationCache(file: file)
        let second = IdentificationCache(file: file)
        #expect(first.lookup(key(1)) == nil)  // both have read the (missing) file
        #expect(second.lookup(key(2)) == nil)
        try first.store(answer("A a"), for: key(1))
        try second.store(answer("B b"), for: key(2))
        let reopened = IdentificationCache(file: file)
        #expect(reopened.lookup(key(1))?.identification.best?.scientificName == "A a")
        #expect(reopened.lookup(key(2))?.identification.best?.scientificName == "B b")
    }

    @Test func entriesExpireAfterSevenDays() throws {
        let time = ManualTime(iso8601: "2026-03-01T12:00:00Z")
        let cache = IdentificationCache(file: try temporaryFolder().appendingPathComponent("cache.json"), now: time.now)
        try cache.store(answer("Ficus elastica"), for: key(1))
        time.advance(by: 7 * 86_400 - 1)
        #expect(cache.lookup(key(1)) != nil)
        time.advance(by: 2)
        #expect(cache.lookup(key(1)) == nil)
        #expect(cache.statistics().expired == 1)
    }

    @Test func evictsTheLeastRecentlyUsed() throws {
        let time = ManualTime(iso8601: "2026-03-01T12:00:00Z")
        let file = try temporaryFolder().appendingPathComponent("cache.json")
        let cache = IdentificationCache(file: file, capacity: 2, now: time.now)
        try cache.store(answer("A a"), for: key(1))
        time.advance(by: 1)
        try cache.store(answer("B b"), for: key(2))
        time.advance(by: 1)
        #expect(cache.lookup(key(1)) != nil)  // 1 is now more recent than 2
        time.advance(by: 1)
        try cache.store(answer("C c"), for: key(3))
        let reopened = IdentificationCache(file: file, capacity: 2, now: time.now)
        #expect(reopened.lookup(key(2)) == nil)
        #expect(reopened.lookup(key(1)) != nil)
        #expect(reopened.lookup(key(3)) != nil)
        #expect(reopened.statistics().entries == 2)
    }

    @Test func perceptualHashFindsAResavedPhoto() throws {
        let cache = IdentificationCache(file: try temporaryFolder().appendingPathComponent("cache.json"))
        try cache.store(answer("Monstera deliciosa"), for: key(1, hash: 0xF0F0_F0F0_0000_FFFF))
        #expect(cache.lookup(key(9, hash: 0xF0F0_F0F0_0000_FFFE)) != nil)  // 1 bit apart
        #expect(cache.lookup(key(9, hash: 0x0F0F_0F0F_0000_FFFF)) == nil)  // far apart
        #expect(cache.lookup(key(9)) == nil)  // no hash: exact only
    }

    @Test func damagedFileIsSetAsideWithAWarning() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("cache.json")
        try Data("{\"version\": 1, \"entries\": [{\"key\"".utf8).write(to: file)
        let warnings = LineRecorder()
        let cache = IdentificationCache(file: file, warn: warnings.log)
        #expect(cache.lookup(key(1)) == nil)
        #expect(warnings.lines.count == 1)
        #expect(warnings.lines.first?.contains("damaged") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.contains { $0.hasPrefix("cache.json.corrupt-") })
        try cache.store(answer("Monstera deliciosa"), for: key(1))
        #expect(IdentificationCache(file: file).lookup(key(1)) != nil)
    }

    @Test func clearEmptiesTheCache() throws {
        let file = try temporaryFolder().appendingPathComponent("cache.json")
        let cache = IdentificationCache(file: file)
        try cache.store(answer("A a"), for: key(1))
        try cache.store(answer("B b"), for: key(2))
        #expect(try cache.clear() == 2)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(IdentificationCache(file: file).statistics().entries == 0)
    }
}
