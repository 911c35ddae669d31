import Synchronization

/// The care states of the households read lately, each kept with the household's care stamp it was read at, so the due
/// list of a household nobody changed since is answered without reading 10,000 plants again.
///
/// Both schemas keep a stamp per household in `careStamp`, written by triggers on every change to what a care state
/// holds (a plant's names, room or creation; its care profile, schedules or care log): a new value that is never
/// handed out twice (SQLite's counter row, PostgreSQL's sequence). Equal stamps therefore mean the same committed
/// care state, whichever process or replica made the changes, so a stamp read in one statement tells whether the
/// states kept here are still the household's. A household with no stamp yet has stamp 0.
///
/// At most ``plantLimit`` plants' states are kept in all; the household read longest ago goes first.
package final class CareStateCache: Sendable {
    private struct Entry {
        var stamp: Int64
        var states: [PlantCareState]
        var lastUse: UInt64
    }

    private struct Contents {
        var entries: [Int64: Entry] = [:]
        var plants = 0
        var uses: UInt64 = 0
    }

    /// The most plants whose states are kept, over all households.
    package let plantLimit: Int
    private let contents = Mutex(Contents())

    /// A cache keeping at most `plantLimit` plants' states (about 300 bytes each, names included).
    package init(plantLimit: Int = 200_000) {
        self.plantLimit = plantLimit
    }

    /// The states kept for `household` if they were read at `stamp`, of the plants in `room` when one is given (compared
    /// as both stores' SQL compares rooms: ASCII letters in either case alike).
    package func states(household: Int64, stamp: Int64, room: String?) -> [PlantCareState]? {
        let states: [PlantCareState]? = contents.withLock { contents in
            guard var entry = contents.entries[household], entry.stamp == stamp else { return nil }
            contents.uses += 1
            entry.lastUse = contents.uses
            contents.entries[household] = entry
            return entry.states
        }
        return states.map { Self.filter($0, room: room) }
    }

    /// Keeps `states`, every plant of `household` in id order, as read at `stamp`.
    package func keep(_ states: [PlantCareState], household: Int64, stamp: Int64) {
        contents.withLock { contents in
            if let old = contents.entries.removeValue(forKey: household) { contents.plants -= old.states.count }
            guard states.count <= plantLimit else { return }
            while contents.plants + states.count > plantLimit,
                  let oldest = contents.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                contents.plants -= oldest.value.states.count
                contents.entries[oldest.key] = nil
            }
            contents.uses += 1
            contents.entries[household] = Entry(stamp: stamp, states: states, lastUse: contents.uses)
            contents.plants += states.count
        }
    }

    /// How many households' states are kept (for tests).
    package var householdCount: Int { contents.withLock { $0.entries.count } }

    /// The states of the plants in `room` (all of them when `nil`), in their order.
    package static func filter(_ states: [PlantCareState], room: String?) -> [PlantCareState] {
        guard let room else { return states }
        return states.filter { $0.room.map { sameRoom($0, room) } ?? false }
    }

    /// Whether two room names are equal when ASCII letters are folded to lower case, and only those: SQLite's NOCASE and
    /// PostgreSQL's `lower(… COLLATE "C")` (pg5) both compare so.
    package static func sameRoom(_ first: String, _ second: String) -> Bool {
        let a = first.utf8, b = second.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowered($0) == lowered($1) }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte + 32 : byte
    }
}
