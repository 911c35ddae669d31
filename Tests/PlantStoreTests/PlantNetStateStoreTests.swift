import Foundation
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing

/// The Pl@ntNet quota and answer cache in the collection database: what every process and replica shares. Every test
/// runs on every backend, through the store protocol.
@Suite struct PlantNetStateStoreTests {
    private let day = "2026-11-24"
    private let now = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00 UTC

    @Test(arguments: StateBackend.allCases)
    func concurrentReservationsFromTwoConnectionsNeverSpendMoreThanTheDayAllows(_ backend: StateBackend) async throws {
        let day = day, now = now
        try await backend.withStores(2) { stores in
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    let store = stores[index % 2]
                    group.addTask {
                        try await Task.detached {
                            try await store.reservePlantNetRequest(day: day, dailyLimit: 12, floor: 2, now: now) != nil
                        }.value
                    }
                }
                var count = 0
                for try await took in group where took { count += 1 }
                return count
            }
            #expect(granted == 10)  // 12 a day, 2 kept back
            let row = try await stores[0].plantNetQuota(day: day, dailyLimit: 12, now: now)
            #expect(row.available == 2)
            #expect(row.spent == 10)
            #expect(row.lastReported == nil)
            // Without a floor the last two go too, and then nothing.
            #expect(try await stores[1].reservePlantNetRequest(day: day, dailyLimit: 12, floor: 0, now: now)?.available == 1)
            #expect(try await stores[0].reservePlantNetRequest(day: day, dailyLimit: 12, floor: 0, now: now)?.available == 0)
            #expect(try await stores[0].reservePlantNetRequest(day: day, dailyLimit: 12, floor: 0, now: now) == nil)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func reportsSetTheCountOnceThenOnlyLowerItAndCancelsGiveBack(_ backend: StateBackend) async throws {
        let day = day, now = now
        try await backend.withStores(1) { stores in
            let store = stores[0]
            #expect(try await store.reservePlantNetRequest(day: day, dailyLimit: 500, floor: 0, now: now)?.available == 499)
            // Pl@ntNet's first answer of the day is the authority, whatever the configured limit.
            #expect(try await store.reportPlantNetRemaining(1_990, day: day, dailyLimit: 500, now: now).available == 1_990)
            _ = try await store.reservePlantNetRequest(day: day, dailyLimit: 500, floor: 0, now: now)
            _ = try await store.reservePlantNetRequest(day: day, dailyLimit: 500, floor: 0, now: now)
            #expect(try await store.plantNetQuota(day: day, dailyLimit: 500, now: now).available == 1_988)
            // A report made before another caller's reservation would raise the count again: it is not taken.
            let late = try await store.reportPlantNetRemaining(1_989, day: day, dailyLimit: 500, now: now)
            #expect(late.available == 1_988)
            #expect(late.lastReported == 1_989)
            try await store.cancelPlantNetReservation(day: day, now: now)
            let row = try await store.plantNetQuota(day: day, dailyLimit: 500, now: now)
            #expect(row.available == 1_989)
            #expect(row.spent == 2)
            #expect(row.day == day)
            // The next UTC day starts afresh from the limit.
            let tomorrow = try await store.plantNetQuota(day: "2026-11-25", dailyLimit: 500, now: now.addingTimeInterval(86_400))
            #expect(tomorrow.available == 500)
            #expect(tomorrow.spent == 0)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func a429BlocksEveryDayUntilItsResetAndThenTheQuotaStartsAfresh(_ backend: StateBackend) async throws {
        let day = day, now = now
        try await backend.withStores(1) { stores in
            let store = stores[0]
            _ = try await store.reportPlantNetRemaining(40, day: day, dailyLimit: 500, now: now)
            let until = now.addingTimeInterval(3 * 3600)
            let blocked = try await store.blockPlantNet(until: until, day: day, dailyLimit: 500, now: now)
            #expect(blocked.blockedUntil.map { abs($0.timeIntervalSince(until)) < 0.001 } == true)
            #expect(blocked.lastReported == nil)
            // Blocked: nothing is taken, nothing given back.
            #expect(try await store.reservePlantNetRequest(day: day, dailyLimit: 500, floor: 0, now: now.addingTimeInterval(60)) == nil)
            try await store.cancelPlantNetReservation(day: day, now: now)
            #expect(try await store.plantNetQuota(day: day, dailyLimit: 500, now: now).spent == 0)
            // A new day's row does not lift a block that is still ahead.
            let nextDay = try await store.plantNetQuota(day: "2026-11-25", dailyLimit: 500, now: now.addingTimeInterval(3600))
            #expect(nextDay.blockedUntil != nil)
            // When the block ends, Pl@ntNet's quota has started afresh: the same day allows its limit again, until a
            // report says otherwise.
            let after = now.addingTimeInterval(4 * 3600)
            let taken = try await store.reservePlantNetRequest(day: day, dailyLimit: 500, floor: 0, now: after)
            #expect(taken?.available == 499)
            #expect(taken?.blockedUntil == nil)
            #expect(try await store.reportPlantNetRemaining(480, day: day, dailyLimit: 500, now: after).available == 480)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func theCacheFindsFreshEntriesCountsUsesAndKeepsTheMostRecentlyUsed(_ backend: StateBackend) async throws {
        let now = now
        let week: TimeInterval = 7 * 86_400
        func entry(_ key: String, at time: Date) -> CachedAnswerRow {
            CachedAnswerRow(
                exactKey: key, project: "all", language: "en", organs: "leaf", perceptualHashes: "[1]",
                answer: #"{"key":"\#(key)"}"#, storedAt: time, lastUsedAt: time
            )
        }
        try await backend.withStores(1) { stores in
            let store = stores[0]
            for index in 0..<5 {
                let time = now.addingTimeInterval(Double(index))
                try await store.storeCachedAnswer(entry("k\(index)", at: time), capacity: 3, freshAfter: time.addingTimeInterval(-week))
            }
            // Three kept: the most recently used.
            var found = try await store.cachedAnswers(project: "all", language: "en", organs: "leaf", freshAfter: now.addingTimeInterval(-week))
            #expect(found.map(\.exactKey) == ["k4", "k3", "k2"])
            #expect(found.first?.answer == #"{"key":"k4"}"#)
            // A use makes k2 the most recent, so the next store pushes out k3 instead.
            let later = now.addingTimeInterval(60)
            try await store.recordAnswerCacheUse(exactKey: "k2", now: later)
            try await store.recordAnswerCacheUse(exactKey: nil, now: later)
            try await store.storeCachedAnswer(entry("k5", at: later.addingTimeInterval(1)), capacity: 3, freshAfter: later.addingTimeInterval(-week))
            found = try await store.cachedAnswers(project: "all", language: "en", organs: "leaf", freshAfter: later.addingTimeInterval(-week))
            #expect(found.map(\.exactKey) == ["k5", "k2", "k4"])
            #expect(found.first { $0.exactKey == "k2" }?.hits == 1)
            // Other organs are other questions; old entries are not fresh.
            #expect(try await store.cachedAnswers(project: "all", language: "en", organs: "flower", freshAfter: now.addingTimeInterval(-week)).isEmpty)
            #expect(try await store.cachedAnswers(project: "all", language: "en", organs: "leaf", freshAfter: later).map(\.exactKey) == ["k5"])
            let counts = try await store.answerCacheCounts(freshAfter: later)
            #expect(counts.entries == 1)
            #expect(counts.expired == 2)
            #expect(counts.hits == 1)
            #expect(counts.misses == 1)
            #expect(counts.newest.map { abs($0.timeIntervalSince(later.addingTimeInterval(1))) < 0.001 } == true)
            #expect(try await store.clearAnswerCache() == 3)
            #expect(try await store.answerCacheCounts(freshAfter: later) == AnswerCacheCounts())
        }
    }

    @Test(arguments: StateBackend.allCases)
    func theSchemaRefusesMalformedStateRows(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withStores(1) { stores in
            let store = stores[0]
            await #expect(throws: StoreError.self) {
                try await store.storeCachedAnswer(
                    CachedAnswerRow(exactKey: "k", project: "all", language: "en", organs: "leaf", perceptualHashes: "not json",
                                    answer: "{}", storedAt: now, lastUsedAt: now),
                    capacity: 10, freshAfter: now.addingTimeInterval(-60)
                )
            }
            await #expect(throws: StoreError.self) {
                try await store.storeCachedAnswer(
                    CachedAnswerRow(exactKey: "k", project: "all", language: "en", organs: "leaf", perceptualHashes: "[]",
                                    answer: "[1]", storedAt: now, lastUsedAt: now),
                    capacity: 10, freshAfter: now.addingTimeInterval(-60)
                )
            }
            await #expect(throws: StoreError.self) { try await store.plantNetQuota(day: "2026-02-30", dailyLimit: 500, now: now) }
            let counts = try await store.answerCacheCounts(freshAfter: now.addingTimeInterval(-60))
            #expect(counts.entries == 0)
        }
    }
}
