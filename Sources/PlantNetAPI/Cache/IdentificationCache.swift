import Foundation
import PlantGuideCore
import Synchronization

/// Remembers Pl@ntNet answers by photo, so asking about the same photo again costs no request and no quota.
///
/// Entries live 7 days; at most 100 are kept, the least recently used going first. The cache is a JSON file
/// in the data directory, read on first use and written atomically after each change, so it survives
/// restarts. A damaged file is moved aside (with a warning) and the cache starts empty: never a crash.
public final class IdentificationCache: Sendable {
    /// How long an answer stays valid.
    public static let defaultTimeToLive: TimeInterval = 7 * 86_400
    /// How many answers are kept.
    public static let defaultCapacity = 100
    /// Perceptual hashes this close (in bits) count as the same photo.
    public static let perceptualMatchDistance = 4

    /// The cache file.
    public let file: URL
    /// The most entries kept.
    public let capacity: Int
    /// How long an entry stays valid, in seconds.
    public let timeToLive: TimeInterval
    private let now: @Sendable () -> Date
    private let warn: @Sendable (String) -> Void
    private let state = Mutex<Storage?>(nil)

    /// A cache persisted in `file`.
    /// - Parameter warn: told when a damaged file is set aside.
    public init(
        file: URL, capacity: Int = defaultCapacity, timeToLive: TimeInterval = defaultTimeToLive,
        now: @escaping @Sendable () -> Date = { Date() }, warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.file = file
        self.capacity = max(capacity, 1)
        self.timeToLive = timeToLive
        self.now = now
        self.warn = warn
    }

    /// The stored answer for `key`, marked with source `cache`, or `nil`. Marks the entry as just used
    /// (in memory; ``flush()`` or the next ``store(_:for:)`` saves that).
    public func lookup(_ key: CacheKey) -> PlantNetAnswer? {
        let time = now()
        return state.withLock { storage -> PlantNetAnswer? in
            if storage == nil { storage = load() }
            // Mutating through the optional in place keeps the entries uniquely referenced (no copy per lookup).
            return storage?.lookup(key, at: time, isFresh: { isFresh($0, at: time) })
        }
    }

    /// Stores `answer` for `key` and saves the cache.
    public func store(_ answer: PlantNetAnswer, for key: CacheKey) throws(PlantNetError) {
        try storeOrThrow(answer, for: key)
    }

    /// Stores an answer, and on failure only warns: the answer was paid for with quota, so losing its cached
    /// copy must not lose the answer itself.
    public func storeKeepingAnswer(_ answer: PlantNetAnswer, for key: CacheKey) {
        do {
            try storeOrThrow(answer, for: key)
        } catch {
            warn("the identification could not be cached (\(error)); it is still answered")
        }
    }

    private func storeOrThrow(_ answer: PlantNetAnswer, for key: CacheKey) throws(PlantNetError) {
        let time = now()
        try state.withLock { storage throws(PlantNetError) in
            var current = storage ?? load()
            current.entries[key.exact] = Entry(key: key, answer: answer, stored: time, lastUsed: time)
            current.dirty = true
            try save(&current, at: time)
            storage = current
        }
    }

    /// Saves changes made by lookups (last-use times), if any.
    public func flush() throws(PlantNetError) {
        let time = now()
        try state.withLock { storage throws(PlantNetError) in
            guard var current = storage, current.dirty else { return }
            try save(&current, at: time)
            storage = current
        }
    }

    /// Every fresh entry in the file, for moving them into the collection database.
    public func storedEntries() -> [(key: CacheKey, answer: PlantNetAnswer, stored: Date, lastUsed: Date)] {
        let time = now()
        return state.withLock { storage in
            let current = storage ?? load()
            storage = current
            return current.entries.values.filter { isFresh($0, at: time) }.map { ($0.key, $0.answer, $0.stored, $0.lastUsed) }
        }
    }

    /// Entry counts and this process's hits and misses.
    public func statistics() -> CacheStatistics {
        let time = now()
        return state.withLock { storage in
            let current = storage ?? load()
            storage = current
            let fresh = current.entries.values.filter { isFresh($0, at: time) }
            return CacheStatistics(
                entries: fresh.count, expired: current.entries.count - fresh.count, capacity: capacity,
                timeToLiveDays: timeToLive / 86_400, hits: current.hits, misses: current.misses,
                oldest: fresh.map(\.stored).min(), newest: fresh.map(\.stored).max(),
                fileBytes: (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            )
        }
    }

    /// Forgets every answer and deletes the file. Returns how many entries there were.
    @discardableResult
    public func clear() throws(PlantNetError) -> Int {
        try state.withLock { storage throws(PlantNetError) -> Int in
            let count = (storage ?? load()).entries.count
            do {
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            } catch {
                throw .storage("could not delete \(file.path): \(error)")
            }
            storage = Storage()
            return count
        }
    }

    // MARK: - Storage

    private struct Entry: Codable {
        var key: CacheKey
        var answer: PlantNetAnswer
        var stored: Date
        var lastUsed: Date
    }

    private struct CacheFile: Codable {
        var version: Int
        var entries: [Entry]
    }

    private struct Storage {
        var entries: [String: Entry] = [:]
        var hits = 0
        var misses = 0
        var dirty = false
        /// Modification date of the file as last read or written; another process changed it if it differs.
        var fileDate: Date?

        mutating func lookup(_ key: CacheKey, at time: Date, isFresh: (Entry) -> Bool) -> PlantNetAnswer? {
            let exact = key.exact
            var found = entries[exact].flatMap { isFresh($0) ? exact : nil }
            if found == nil, key.perceptualHashes.contains(where: { $0 != nil }) {
                found = entries.first { _, entry in
                    isFresh(entry) && entry.key.looksLike(key, maximumDistance: IdentificationCache.perceptualMatchDistance)
                }?.key
            }
            guard let found, entries[found] != nil else {
                misses += 1
                return nil
            }
            entries[found]?.lastUsed = time
            hits += 1
            dirty = true
            return entries[found]?.answer.servedFromCache
        }
    }

    private func isFresh(_ entry: Entry, at time: Date) -> Bool {
        time.timeIntervalSince(entry.stored) < timeToLive && entry.stored <= time.addingTimeInterval(60)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private func readFile() -> [String: Entry]? {
        guard let data = try? Data(contentsOf: file) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let decoded = try? decoder.decode(CacheFile.self, from: data), decoded.version == 1 else { return nil }
        return Dictionary(decoded.entries.map { ($0.key.exact, $0) }) { first, second in
            first.lastUsed >= second.lastUsed ? first : second
        }
    }

    private func fileDate() -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
    }

    private func load() -> Storage {
        let date = fileDate()
        if let entries = readFile() { return Storage(entries: entries, fileDate: date) }
        setAside()
        return Storage()
    }

    private func setAside() {
        let stamp = ISO8601DateFormatter().string(from: now()).replacingOccurrences(of: ":", with: "")
        let aside = file.appendingPathExtension("corrupt-\(stamp)")
        do {
            try? FileManager.default.removeItem(at: aside)
            try FileManager.default.moveItem(at: file, to: aside)
            warn("warning: the identification cache \(file.path) was damaged; moved it to \(aside.lastPathComponent) "
                + "and started an empty cache.")
        } catch {
            warn("warning: the identification cache \(file.path) is damaged and could not be moved (\(error)); "
                + "it will be replaced.")
        }
    }

    /// Merges what another process may have written since, drops expired entries, evicts the least recently
    /// used beyond the capacity, and writes the file.
    private func save(_ storage: inout Storage, at time: Date) throws(PlantNetError) {
        // Merge only when another process wrote the file since; re-reading it costs more than the write.
        if fileDate() != storage.fileDate, let onDisk = readFile() {
            for (key, entry) in onDisk where (storage.entries[key]?.lastUsed ?? .distantPast) < entry.lastUsed {
                storage.entries[key] = entry
            }
        }
        storage.entries = storage.entries.filter { isFresh($0.value, at: time) }
        if storage.entries.count > capacity {
            let keep = storage.entries.sorted { $0.value.lastUsed > $1.value.lastUsed }.prefix(capacity)
            storage.entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
        let entries = storage.entries.values.sorted { $0.lastUsed > $1.lastUsed }
        do {
            try AtomicFile.write(try Self.encoder.encode(CacheFile(version: 1, entries: entries)), to: file)
        } catch {
            throw .storage("identification cache \(file.path): \(error)")
        }
        storage.dirty = false
        storage.fileDate = fileDate()
    }
}

/// Figures shown by `plantguide cache stats`.
public struct CacheStatistics: Sendable, Codable, Hashable {
    /// Valid entries.
    public var entries: Int
    /// Entries older than the time to live, dropped at the next save.
    public var expired: Int
    /// The most entries kept.
    public var capacity: Int
    /// How long entries stay valid.
    public var timeToLiveDays: Double
    /// Lookups answered from the cache in this process.
    public var hits: Int
    /// Lookups that found nothing in this process.
    public var misses: Int
    /// When the oldest valid entry was stored.
    public var oldest: Date?
    /// When the newest entry was stored.
    public var newest: Date?
    /// Size of the cache file.
    public var fileBytes: Int

    /// Creates statistics.
    public init(
        entries: Int, expired: Int, capacity: Int, timeToLiveDays: Double, hits: Int, misses: Int, oldest: Date?,
        newest: Date?, fileBytes: Int
    ) {
        self.entries = entries
        self.expired = expired
        self.capacity = capacity
        self.timeToLiveDays = timeToLiveDays
        self.hits = hits
        self.misses = misses
        self.oldest = oldest
        self.newest = newest
        self.fileBytes = fileBytes
    }
}
