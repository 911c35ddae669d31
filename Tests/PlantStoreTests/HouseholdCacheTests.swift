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

    @Test func aPatchedListDropsTheChangedPlantsAndMergesTheirNewElementsInOrder() {
        // Elements are (plant, key), ordered by key then plant.
        struct Element: Equatable { let plant: Int64; let key: Int }
        let precedes = { (a: Element, b: Element) in (a.key, a.plant) < (b.key, b.plant) }
        let kept = [Element(plant: 1, key: 10), Element(plant: 2, key: 20), Element(plant: 3, key: 30), Element(plant: 4, key: 40)]
        // Plant 2 moves to the end, plant 3 is gone, plant 9 is new and goes first, plant 1 stays where it is.
        let patched = KeptLists.patched(
            kept, changed: [1, 2, 3, 9], fresh: [Element(plant: 2, key: 50), Element(plant: 9, key: 5), Element(plant: 1, key: 10)],
            plantId: \.plant, precedes: precedes
        )
        #expect(patched == [Element(plant: 9, key: 5), Element(plant: 1, key: 10), Element(plant: 4, key: 40), Element(plant: 2, key: 50)])
        #expect(KeptLists.patched(kept, changed: [], fresh: [], plantId: \.plant, precedes: precedes) == kept)
        #expect(KeptLists.patched([], changed: [7], fresh: [Element(plant: 7, key: 1)], plantId: \.plant, precedes: precedes)
            == [Element(plant: 7, key: 1)])
        // In place: the same results, whether each plant stays where it is (replaced in place) or not (merged anew).
        for (changed, fresh) in [
            ([Int64(2)], [Element(plant: 2, key: 25)]),
            ([1, 2, 3, 9], [Element(plant: 2, key: 50), Element(plant: 9, key: 5), Element(plant: 1, key: 10)]),
            ([3], []),
            ([1, 4], [Element(plant: 1, key: 45), Element(plant: 4, key: 15)]),
            ([1, 2, 3, 4, 5, 6, 7, 8, 9], [Element(plant: 3, key: 31)]),
        ] {
            var list = kept
            KeptLists.patch(&list, changed: changed, fresh: fresh, plantId: \.plant, precedes: precedes)
            #expect(list == KeptLists.patched(kept, changed: Set(changed), fresh: fresh, plantId: \.plant, precedes: precedes))
            #expect(list == list.sorted(by: precedes))
        }
        // A list read before the log began, or before the household had a stamp, is read whole.
        #expect(KeptLists.canPatch(keptStamp: 40, since: 40, current: 41))
        #expect(!KeptLists.canPatch(keptStamp: 39, since: 40, current: 41))
        #expect(!KeptLists.canPatch(keptStamp: 0, since: 0, current: 41))
        // No stamp row (the household is gone), or a list kept at or past the stamp read now: not patched.
        #expect(!KeptLists.canPatch(keptStamp: 40, since: nil, current: 41))
        #expect(!KeptLists.canPatch(keptStamp: 41, since: 40, current: 41))
        #expect(!KeptLists.canPatch(keptStamp: 42, since: 40, current: 41))
    }

    @Test func roomAndNameOrderFoldsASCIILettersOnlyAndPutsPrefixesFirst() {
        #expect(RoomNames.compare("fern", "FERN") == 0)
        #expect(RoomNames.compare("Fern", "ferns") < 0)
        #expect(RoomNames.compare("A_", "aa") < 0)  // '_' sorts before the lower-case letters it is compared with
        #expect(RoomNames.compare("Éfeu", "zebra") > 0)  // bytes of É above every ASCII letter
        #expect(RoomNames.compare("", "a") < 0)
    }

    @Test func aKeptListIsChangedOnlyFromTheStampItWasReadAt() {
        let cache = HouseholdCache<Item>(limit: 10)
        cache.keep(Self.items(3), household: 1, stamp: 5)
        #expect(cache.keptStamp(household: 1) == 5)
        #expect(cache.keptStamp(household: 2) == nil)
        // From another stamp: nothing changes.
        #expect(cache.update(household: 1, from: 4, to: 6) { $0.removeAll() } == nil)
        #expect(cache.elements(household: 1, stamp: 5) == Self.items(3))
        // From its stamp: changed and kept as of the new one.
        #expect(cache.update(household: 1, from: 5, to: 7) { $0.append(Item(id: 4)) }?.map(\.id) == [1, 2, 3, 4])
        #expect(cache.elements(household: 1, stamp: 5) == nil)
        #expect(cache.elements(household: 1, stamp: 7)?.count == 4)
        #expect(cache.keeps == HouseholdCache<Item>.Keeps(whole: 1, patched: 1))
        // Growing past the limit drops the household used longest ago.
        cache.keep(Self.items(5), household: 2, stamp: 1)
        _ = cache.update(household: 2, from: 1, to: 2) { $0 += Self.items(2, firstId: 6) }
        #expect(cache.elements(household: 1, stamp: 7) == nil)
        #expect(cache.elements(household: 2, stamp: 2)?.count == 7)
    }
}
