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

    /// Whether a list kept at `keptStamp` can be brought up to date to `current`, the household's stamp now, from a log
    /// complete since `since` (`nil` when the household has no stamp row). A list kept at a stamp not below `current` (a
    /// write through this server brought it further than an older snapshot reads, or a restored database) is left as it
    /// is and the snapshot's read whole.
    package static func canPatch(keptStamp: Int64, since: Int64?, current: Int64) -> Bool {
        guard let since else { return false }
        return keptStamp > 0 && keptStamp >= since && keptStamp < current
    }

    /// Puts `fresh`, the current elements of the plants in `changed` (none for a plant now gone), in place of their old
    /// ones in `elements` (in the order `precedes` gives). A plant changed where it stays in the order (the usual change:
    /// care, a note, a photo) is replaced where it is, without copying the list; a plant added, removed or moving makes a
    /// new list by ``patched(_:changed:fresh:plantId:precedes:)``.
    package static func patch<Element>(
        _ elements: inout [Element], changed: [Int64], fresh: [Element], plantId: (Element) -> Int64,
        precedes: (Element, Element) -> Bool
    ) {
        guard !changed.isEmpty else { return }
        let wanted = Set(changed)
        var places: [(index: Int, plant: Int64)] = []
        for index in elements.indices {
            let plant = plantId(elements[index])
            if changed.count <= 8 ? changed.contains(plant) : wanted.contains(plant) { places.append((index, plant)) }
        }
        var byPlant: [Int64: Element] = [:]
        for element in fresh { byPlant[plantId(element)] = element }
        var inPlace = places.count == changed.count && byPlant.count == changed.count
        if inPlace {
            for place in places {
                guard let element = byPlant[place.plant] else { inPlace = false; break }
                elements[place.index] = element
            }
        }
        // Only the neighbours of a replaced element can be out of order.
        if inPlace {
            inPlace = places.allSatisfy { place in
                (place.index == 0 || !precedes(elements[place.index], elements[place.index - 1]))
                    && (place.index == elements.count - 1 || !precedes(elements[place.index + 1], elements[place.index]))
            }
        }
        if !inPlace {
            elements = patched(elements, changed: wanted, fresh: fresh, plantId: plantId, precedes: precedes)
        }
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

/// What a write of one plant's care read again of that plant, in its transaction, for the household's lists kept at the
/// stamp before the write; put in place once the write committed (``apply(careCache:plantCache:)``).
package struct CareWriteRefresh: Sendable {
    package var household: Int64
    package var plantId: Int64
    /// The household's stamp before the write and after it.
    package var before: Int64
    package var after: Int64
    /// The plant's care state (none when it is gone), when care states are kept at `before`.
    package var states: [PlantCareState]?
    /// The plant's row (none when it is gone), when a plant list is kept at `before`.
    package var plants: [Plant]?

    package init(household: Int64, plantId: Int64, before: Int64, after: Int64, states: [PlantCareState]?, plants: [Plant]?) {
        (self.household, self.plantId, self.before, self.after) = (household, plantId, before, after)
        (self.states, self.plants) = (states, plants)
    }

    /// Puts what was read in place of the plant's old state and row, in the lists still kept at `before`.
    package func apply(careCache: HouseholdCache<PlantCareState>, plantCache: HouseholdCache<Plant>) {
        if let states {
            _ = careCache.patch(
                household: household, from: before, to: after, changed: [plantId], fresh: states, plantId: \.plantId,
                precedes: KeptLists.careOrder
            )
        }
        if let plants {
            _ = plantCache.patch(
                household: household, from: before, to: after, changed: [plantId], fresh: plants, plantId: \.id,
                precedes: KeptLists.listOrder
            )
        }
    }
}
