import Foundation
@testable import PlantStore
import Testing

/// The in-memory care states: kept per household at a stamp, bounded, matched by room as the stores' SQL matches.
@Suite struct CareStateCacheTests {
    private static func states(_ count: Int, room: String? = nil, firstId: Int64 = 1) -> [PlantCareState] {
        (0..<count).map { index in
            PlantCareState(
                plantId: firstId + Int64(index), plantUUID: UUID().uuidString.lowercased(), displayName: "Plant \(index)",
                room: room, createdAt: Date(timeIntervalSince1970: 1_795_000_000), intervals: PerTask(repeating: TaskIntervals(growing: 7, rest: 14)),
                settings: PerTask(repeating: nil), lastDone: PerTask(repeating: nil)
            )
        }
    }

    @Test func statesAreGivenOnlyAtTheStampTheyWereReadAt() {
        let cache = CareStateCache()
        let kept = Self.states(3, room: "Hall")
        cache.keep(kept, household: 1, stamp: 41)
        #expect(cache.states(household: 1, stamp: 41, room: nil) == kept)
        #expect(cache.states(household: 1, stamp: 42, room: nil) == nil)
        #expect(cache.states(household: 2, stamp: 41, room: nil) == nil)
        // A newer read replaces the older one.
        let newer = Self.states(2)
        cache.keep(newer, household: 1, stamp: 42)
        #expect(cache.states(household: 1, stamp: 41, room: nil) == nil)
        #expect(cache.states(household: 1, stamp: 42, room: nil) == newer)
    }

    @Test func theHouseholdReadLongestAgoGoesFirstWhenPlantsWouldExceedTheLimit() {
        let cache = CareStateCache(plantLimit: 10)
        cache.keep(Self.states(4), household: 1, stamp: 1)
        cache.keep(Self.states(4), household: 2, stamp: 1)
        _ = cache.states(household: 1, stamp: 1, room: nil)  // household 1 is now the more recent
        cache.keep(Self.states(4), household: 3, stamp: 1)
        #expect(cache.states(household: 2, stamp: 1, room: nil) == nil)
        #expect(cache.states(household: 1, stamp: 1, room: nil)?.count == 4)
        #expect(cache.states(household: 3, stamp: 1, room: nil)?.count == 4)
        #expect(cache.householdCount == 2)
        // A household larger than the limit is not kept at all, and evicts nothing.
        cache.keep(Self.states(11), household: 4, stamp: 1)
        #expect(cache.states(household: 4, stamp: 1, room: nil) == nil)
        #expect(cache.householdCount == 2)
    }

    @Test func roomsMatchIgnoringTheCaseOfASCIILettersOnly() {
        let hall = Self.states(2, room: "Hall"), other = Self.states(1, room: "hallé", firstId: 3), none = Self.states(1, firstId: 4)
        let cache = CareStateCache()
        cache.keep(hall + other + none, household: 1, stamp: 1)
        #expect(cache.states(household: 1, stamp: 1, room: "HALL")?.map(\.plantId) == [1, 2])
        #expect(cache.states(household: 1, stamp: 1, room: "HALLé")?.map(\.plantId) == [3])
        // É is not folded to é, as neither SQLite's NOCASE nor PostgreSQL's "C" lower() folds it.
        #expect(cache.states(household: 1, stamp: 1, room: "HALLÉ")?.isEmpty == true)
        #expect(cache.states(household: 1, stamp: 1, room: "Hal")?.isEmpty == true)
        #expect(CareStateCache.sameRoom("Living Room", "living room"))
        #expect(!CareStateCache.sameRoom("Living Room", "Living-Room"))
    }
}
