/// Brings a household's list kept in ``HouseholdCache`` up to date from the plants changed since it was read, instead of
/// reading every plant again.
///
/// Both schemas log, per household, the plants whose rows, care profile, schedules or care log a change touched, each with
/// the household stamp of its last change (`plantChange`, v17 and pg9). Stamps grow in the order a household's changes
/// commit (SQLite writes one at a time; PostgreSQL takes a stamp only once it holds the household's stamp row), so the
/// plants logged above a list's stamp are exactly those whose rows may differ from the list's. The log is complete from
/// the household's `since` stamp on (a copy by `plantguide migrate` fills tables without it); a list read before that, or
/// before the household had a stamp at all (0), is read again whole.
package enum KeptLists {
    /// The most changed plants read one by one; past this many, the household's plants are read again whole.
    package static let patchLimit = 256

    /// Whether a list kept at `keptStamp` can be brought up to date from a log complete since `since`.
    package static func canPatch(keptStamp: Int64, since: Int64) -> Bool {
        keptStamp > 0 && keptStamp >= since
    }

    /// `elements` (in the order `precedes` gives) with every element of a plant in `changed` taken out and `fresh`, the
    /// current elements of those plants (none for a plant now gone), merged in at their places.
    package static func patched<Element>(
        _ elements: [Element], changed: Set<Int64>, fresh: [Element], plantId: (Element) -> Int64,
        precedes: (Element, Element) -> Bool
    ) -> [Element] {
        let added = fresh.sorted(by: precedes)
        var result: [Element] = []
        result.reserveCapacity(elements.count + added.count)
        var next = added.startIndex
        for element in elements where !changed.contains(plantId(element)) {
            while next < added.endIndex, precedes(added[next], element) {
                result.append(added[next])
                next += 1
            }
            result.append(element)
        }
        result.append(contentsOf: added[next...])
        return result
    }

    /// The order of care states: by plant id.
    package static func careOrder(_ first: PlantCareState, _ second: PlantCareState) -> Bool {
        first.plantId < second.plantId
    }

    /// The plant list's order in both stores: rooms A–Z comparing ASCII-folded bytes (SQLite's NOCASE, PostgreSQL's
    /// `lower(… COLLATE "C")`), plants with no room last, then names the same way, then ids.
    package static func listOrder(_ first: Plant, _ second: Plant) -> Bool {
        switch (first.room, second.room) {
        case (nil, .some): return false
        case (.some, nil): return true
        case let (.some(a), .some(b)):
            let rooms = RoomNames.compare(a, b)
            if rooms != 0 { return rooms < 0 }
        case (nil, nil): break
        }
        let names = RoomNames.compare(first.name, second.name)
        if names != 0 { return names < 0 }
        return first.id < second.id
    }
}
