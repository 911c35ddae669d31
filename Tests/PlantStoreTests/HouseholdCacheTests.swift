import Foundation
import PlantStore
import Testing

/// Lists kept in memory per household at a change stamp, bounded, and rooms matched as the stores' SQL matches them.
@Suite struct HouseholdCacheTests {
    private struct Item: Sendable, Hashable {
        let id: Int
        var room: String?
    }

    private static func items(_ count: Int, room: String? = nil, firstId: Int = 1) -> [Item] {
        (0..<count).map { Item(id: firstId + $0, room: room) }
    }

    @Test func listsAreGivenOnlyAtTheStampTheyWereReadAt() {
        let cache = HouseholdCache<Item>()
        let kept = Self.items(3, room: "Hall")
        cache.keep(kept, household: 1, stamp: 41)
        #expect(cache.elements(household: 1, stamp: 41) == kept)
        #expect(cache.elements(household: 1, stamp: 42) == nil)
        #expect(cache.elements(household: 2, stamp: 41) == nil)
        // A newer read replaces the older one.
        let newer = Self.items(2)
        cache.keep(newer, household: 1, stamp: 42)
        #expect(cache.elements(household: 1, stamp: 41) == nil)
        #expect(cache.elements(household: 1, stamp: 42) == newer)
        #expect(cache.householdCount == 1)
    }

    @Test func theHouseholdReadLongestAgoGoesFirstWhenTheLimitWouldBeExceeded() {
        let cache = HouseholdCache<Item>(limit: 10)
        cache.keep(Self.items(4), household: 1, stamp: 1)
        cache.keep(Self.items(4), household: 2, stamp: 1)
        _ = cache.elements(household: 1, stamp: 1)  // household 1 is now the more recent
        cache.keep(Self.items(4), household: 3, stamp: 1)
        #expect(cache.elements(household: 2, stamp: 1) == nil)
        #expect(cache.elements(household: 1, stamp: 1)?.count == 4)
        #expect(cache.elements(household: 3, stamp: 1)?.count == 4)
        #expect(cache.householdCount == 2)
        // A household larger than the limit is not kept at all, and evicts nothing.
        cache.keep(Self.items(11), household: 4, stamp: 1)
        #expect(cache.elements(household: 4, stamp: 1) == nil)
        #expect(cache.householdCount == 2)
    }

    @Test func roomsMatchIgnoringTheCaseOfASCIILettersOnly() {
        let all = Self.items(2, room: "Hall") + Self.items(1, room: "hallé", firstId: 3) + Self.items(1, firstId: 4)
        #expect(RoomNames.filter(all, room: "HALL", by: \.room).map(\.id) == [1, 2])
        #expect(RoomNames.filter(all, room: "HALLé", by: \.room).map(\.id) == [3])
        // É is not folded to é, as neither SQLite's NOCASE nor PostgreSQL's "C" lower() folds it.
        #expect(RoomNames.filter(all, room: "HALLÉ", by: \.room).isEmpty)
        #expect(RoomNames.filter(all, room: "Hal", by: \.room).isEmpty)
        #expect(RoomNames.filter(all, room: nil, by: \.room) == all)
        #expect(RoomNames.same("Living Room", "living room"))
        #expect(!RoomNames.same("Living Room", "Living-Room"))
    }
}
