import Foundation
import PlantGuideCore
@testable import PlantStore
@testable import PlantStoreSQLite

/// A fresh data directory under the system's temporary folder, removed by `cleanUp()`.
struct TemporaryHome {
    let directory: DataDirectory

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("plantstore-test-\(UUID().uuidString)")
        directory = DataDirectory(url: url)
        try directory.create()
    }

    var databaseURL: URL { directory.appending(CollectionDatabase.fileName) }

    func open() throws -> CollectionDatabase { try CollectionDatabase.open(in: directory) }

    func cleanUp() { try? FileManager.default.removeItem(at: directory.url) }
}

/// A mutable clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ iso: String) {
        current = ISO8601DateFormatter().date(from: iso) ?? Date(timeIntervalSince1970: 0)
    }

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func set(_ iso: String) {
        lock.lock()
        defer { lock.unlock() }
        current = ISO8601DateFormatter().date(from: iso) ?? current
    }

    func advance(days: Int) {
        lock.lock()
        defer { lock.unlock() }
        current = current.addingTimeInterval(Double(days) * 86_400)
    }

    func advance(seconds: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        current = current.addingTimeInterval(seconds)
    }
}

extension CareProfile {
    /// A profile with round numbers, for arithmetic tests.
    static func fixture(water: Int = 7, winterWater: Int = 14, fertilize: Int? = 30) -> CareProfile {
        CareProfile(
            light: .brightIndirect, waterGrowingDays: water, waterWinterDays: winterWater, fertilizeGrowingDays: fertilize,
            mistDays: nil, repotDays: 730, pruneDays: nil, humidity: .medium, minTemperature: 16, maxTemperature: 29,
            toxicToCats: true, toxicToDogs: true, toxicitySource: "test", basis: "test"
        )
    }
}

func day(_ text: String) -> CalendarDay {
    guard let day = CalendarDay(text) else { fatalError("bad test date \(text)") }
    return day
}
