import Foundation
import PlantGuideTestSupport
import PlantNetAPI
import Testing

@Suite struct QuotaTrackerTests {
    @Test func twoTrackersOnOneFileShareTheCount() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("quota.json")
        let time = ManualTime(iso8601: "2026-03-01T10:00:00Z")
        let first = QuotaTracker(file: file, now: time.now)
        let second = QuotaTracker(file: file, now: time.now)
        #expect(second.status().level == .unknown)
        try first.record(remaining: 42)
        #expect(second.status().remaining == 42)
        #expect(second.status().level == .veryLow)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test(arguments: [
        (nil, QuotaLevel.unknown), (500, .ok), (101, .ok), (100, .low), (51, .low), (50, .veryLow), (11, .veryLow),
        (10, .critical), (1, .critical), (0, .exhausted),
    ] as [(Int?, QuotaLevel)])
    func warningLevels(remaining: Int?, level: QuotaLevel) throws {
        let tracker = QuotaTracker(file: try temporaryFolder().appendingPathComponent("quota.json"))
        #expect(try tracker.record(remaining: remaining).level == level)
    }

    @Test func levelsHaveOneWordingForPeople() {
        #expect(QuotaLevel.allCases.map(\.label) == ["unknown", "ok", "low", "very low", "critical", "exhausted"])
        #expect(QuotaLevel(remaining: 42).label == "very low")
    }

    /// A reset date far ahead (a hand edit, a clock that jumped, a malformed 429) must not block the API for longer
    /// than the quota's one-day period.
    @Test func aResetDateFarAheadIsTreatedAsDamage() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("quota.json")
        let time = ManualTime(iso8601: "2026-03-01T10:00:00Z")
        let tracker = QuotaTracker(file: file, now: time.now)
        try tracker.recordExhausted(resetsAt: ISO8601DateFormatter().date(from: "2099-01-01T00:00:00Z")!)
        let status = tracker.status()
        #expect(status.isBlocked)
        #expect(status.resetsAt.timeIntervalSince(time.now()) <= 25 * 3600)

        let damaged = #"{"remaining":0,"blocked":true,"resetsAt":"2099-01-01T00:00:00Z","updatedAt":"2026-03-01T09:00:00Z"}"#
        try Data(damaged.utf8).write(to: file)
        let reread = QuotaTracker(file: file, now: time.now).status()
        #expect(!reread.isBlocked)
        #expect(reread.resetsAt == ISO8601DateFormatter().date(from: "2026-03-02T00:00:00Z"))
    }

    @Test func zeroLeftBlocksUntilMidnightUTCThenResets() throws {
        let file = try temporaryFolder().appendingPathComponent("quota.json")
        let time = ManualTime(iso8601: "2026-03-01T23:50:00Z")
        let midnight = try #require(ISO8601DateFormatter().date(from: "2026-03-02T00:00:00Z"))
        let tracker = QuotaTracker(file: file, now: time.now)
        try tracker.record(remaining: 0)
        #expect(throws: PlantNetError.quotaExhausted(resetsAt: midnight)) { try tracker.checkAvailable() }
        time.advance(by: 9 * 60)
        #expect(throws: PlantNetError.quotaExhausted(resetsAt: midnight)) {
            try QuotaTracker(file: file, now: time.now).checkAvailable()
        }
        time.advance(by: 60)
        let after = QuotaTracker(file: file, now: time.now)
        try after.checkAvailable()
        #expect(after.status().level == .unknown)
        #expect(after.status().resetsAt == midnight.addingTimeInterval(86_400))
    }

    @Test func a429BlocksUntilTheGivenTime() throws {
        let time = ManualTime(iso8601: "2026-03-01T12:00:00Z")
        let tracker = QuotaTracker(file: try temporaryFolder().appendingPathComponent("quota.json"), now: time.now)
        let reset = time.date.addingTimeInterval(600)
        try tracker.recordExhausted(resetsAt: reset)
        #expect(tracker.status() == QuotaStatus(remaining: 0, resetsAt: reset, level: .exhausted))
        time.advance(by: 601)
        try tracker.checkAvailable()
    }

    @Test func damagedFileMeansUnknownNotACrash() throws {
        let file = try temporaryFolder().appendingPathComponent("quota.json")
        try Data("{\"remaining\": ".utf8).write(to: file)
        let tracker = QuotaTracker(file: file)
        #expect(tracker.status().level == .unknown)
        try tracker.record(remaining: 300)
        #expect(QuotaTracker(file: file).status().remaining == 300)
    }

    @Test func statusJSONHasItsThreeKeys() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(QuotaStatus(remaining: nil, resetsAt: Date(timeIntervalSince1970: 0), level: .unknown))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["remaining", "resetsAt", "level"])
        #expect(object["remaining"] is NSNull)
    }
}
