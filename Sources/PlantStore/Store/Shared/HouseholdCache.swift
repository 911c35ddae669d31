import Synchronization

/// Lists the stores read lately for each household (its plants, or its plants' care states), each kept with the
/// household's change stamp it was read at, so a list nobody changed since is answered without reading 10,000 plants
/// again.
///
/// Both schemas keep a stamp per household in `changeStamp`, written by triggers on every change to the household's
/// plants, their care profiles, schedules and care log: a new value that is never handed out twice (SQLite's counter
/// row, PostgreSQL's sequence). Equal stamps therefore mean the same committed plants and care, whichever process or
/// replica made the changes, so a stamp read in one statement tells whether what is kept here is still the
/// household's. A household with no stamp yet has stamp 0.
///
/// At most ``limit`` elements are kept in all; the household read longest ago goes first.
package final class HouseholdCache<Element: Sendable>: Sendable {
    private struct Entry {
        var stamp: Int64
        var elements: [Element]
        var lastUse: UInt64
    }

    private struct Contents {
        var entries: [Int64: Entry] = [:]
        var count = 0
        var uses: UInt64 = 0
        var keeps = Keeps()
    }

    /// How the lists kept so far came to be (for tests and the benchmark).
    package struct Keeps: Sendable, Equatable {
        /// Lists read whole from the tables.
        package var whole = 0
        /// Lists brought up to date from a kept one, by reading only the plants changed since.
        package var patched = 0

        package init(whole: Int = 0, patched: Int = 0) {
            self.whole = whole
            self.patched = patched
        }
    }

    /// The most elements kept, over all households.
    package let limit: Int
    private let contents = Mutex(Contents())

    /// A cache keeping at most `limit` elements (a plant or a care state is a few hundred bytes, names included).
    package init(limit: Int = 100_000) {
        self.limit = limit
    }

    /// The elements kept for `household` if they were read at `stamp`.
    package func elements(household: Int64, stamp: Int64) -> [Element]? {
        contents.withLock { contents in
            guard var entry = contents.entries[household], entry.stamp == stamp else { return nil }
            contents.uses += 1
            entry.lastUse = contents.uses
            contents.entries[household] = entry
            return entry.elements
        }
    }

    /// The stamp the elements kept for `household` were read at, whatever the household's stamp is now: what a read
    /// brings up to date with the plants changed since (``update(household:from:to:_:)``) instead of reading every plant
    /// again.
    package func keptStamp(household: Int64) -> Int64? {
        contents.withLock { $0.entries[household]?.stamp }
    }

    /// Changes the elements kept for `household` with `change`, in place (no copy of a list nobody else holds), if they
    /// are still those read at `stamp`, and keeps them as of `newStamp`. Returns them, or `nil` when what is kept is no
    /// longer of `stamp` (someone brought it along first, or it was dropped).
    package func update(
        household: Int64, from stamp: Int64, to newStamp: Int64, _ change: (inout [Element]) -> Void
    ) -> [Element]? {
        contents.withLock { contents in
            guard contents.entries[household]?.stamp == stamp else { return nil }
            contents.uses += 1
            let oldCount = contents.entries[household]!.elements.count
            contents.entries[household]!.stamp = newStamp
            contents.entries[household]!.lastUse = contents.uses
            // Changed through the dictionary's accessor: the array's storage is not copied when only the cache holds it.
            change(&contents.entries[household]!.elements)
            let elements = contents.entries[household]!.elements
            contents.count += elements.count - oldCount
            contents.keeps.patched += 1
            Self.trim(&contents, limit: limit)
            return elements
        }
    }

    /// Puts `fresh`, the current elements of the plants in `changed`, in place of theirs in the list kept for `household`
    /// if it is still the one read at `stamp` (``KeptLists/patch(_:changed:fresh:plantId:precedes:)``), and keeps it as of
    /// `newStamp`. Returns the list, or `nil` when what is kept is no longer of `stamp`.
    package func patch(
        household: Int64, from stamp: Int64, to newStamp: Int64, changed: [Int64], fresh: [Element],
        plantId: (Element) -> Int64, precedes: (Element, Element) -> Bool
    ) -> [Element]? {
        update(household: household, from: stamp, to: newStamp) { elements in
            KeptLists.patch(&elements, changed: changed, fresh: fresh, plantId: plantId, precedes: precedes)
        }
    }

    /// Keeps `elements`, all of `household`'s, as read whole at `stamp`.
    package func keep(_ elements: [Element], household: Int64, stamp: Int64) {
        contents.withLock { contents in
            contents.keeps.whole += 1
            if let old = contents.entries.removeValue(forKey: household) { contents.count -= old.elements.count }
            guard elements.count <= limit else { return }
            contents.uses += 1
            contents.entries[household] = Entry(stamp: stamp, elements: elements, lastUse: contents.uses)
            contents.count += elements.count
            Self.trim(&contents, limit: limit)
        }
    }

    /// Drops the households used longest ago until at most `limit` elements are kept (the one just kept, used last, goes
    /// only when it alone is over the limit).
    private static func trim(_ contents: inout Contents, limit: Int) {
        while contents.count > limit, let oldest = contents.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            contents.count -= oldest.value.elements.count
            contents.entries[oldest.key] = nil
        }
    }

    /// How the lists kept so far came to be.
    package var keeps: Keeps { contents.withLock { $0.keeps } }

    /// How many households' lists are kept (for tests).
    package var householdCount: Int { contents.withLock { $0.entries.count } }
}

/// Rooms as both stores' SQL compares them.
package enum RoomNames {
    /// The elements whose room is `room` (all of them when `nil`), in their order.
    package static func filter<Element>(_ elements: [Element], room: String?, by roomOf: (Element) -> String?) -> [Element] {
        guard let room else { return elements }
        return elements.filter { roomOf($0).map { same($0, room) } ?? false }
    }

    /// Whether two room names are equal when ASCII letters are folded to lower case, and only those: SQLite's NOCASE and
    /// PostgreSQL's `lower(… COLLATE "C")` (pg5) both compare so.
    package static func same(_ first: String, _ second: String) -> Bool {
        let a = first.utf8, b = second.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowered($0) == lowered($1) }
    }

    /// How two names compare when ASCII letters are folded to lower case, byte by byte, a prefix first: below 0 when
    /// `first` goes first, 0 when they are the same, above 0 otherwise (SQLite's NOCASE and PostgreSQL's ordering by
    /// `lower(… COLLATE "C")` both order so).
    package static func compare(_ first: String, _ second: String) -> Int {
        var a = first.utf8.makeIterator(), b = second.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?):
                let (lx, ly) = (lowered(x), lowered(y))
                if lx != ly { return lx < ly ? -1 : 1 }
            }
        }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte + 32 : byte
    }
}
