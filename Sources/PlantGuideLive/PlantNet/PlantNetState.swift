import Foundation
import PlantGuideCore
import PlantNetAPI
import PlantStore
import PlantStoreSQLite

extension StoreAnswerCache: DiagnosisCache {
    /// Disease answers share the identification cache's table, under their own project (``CacheKey/diagnosisProject``),
    /// its time to live (7 days) and its capacity.
    public func diagnosis(for key: CacheKey) async -> DiagnosisAnswer? {
        await lookUp(DiagnosisAnswer.self, for: key, nearCopies: false)?.servedFromCache
    }

    public func keep(_ answer: DiagnosisAnswer, for key: CacheKey) async throws(PlantNetError) {
        try await store(answer, for: key)
    }
}

/// The Pl@ntNet quota and answer cache as the server and the command line use them: in the collection's store when it
/// opens (every process and replica counts one quota and shares one cache), in the data directory's JSON files
/// otherwise.
public struct PlantNetState: Sendable {
    /// The daily quota.
    public var quota: any QuotaLedger
    /// Answers by photo.
    public var cache: any AnswerCache
    /// Disease answers by photo (in the store's cache table); `nil` without a store.
    public var diagnoses: (any DiagnosisCache)? = nil

    /// The requests a day allows when Pl@ntNet has not said otherwise yet: `PLANTGUIDE_PLANTNET_DAILY_LIMIT`, else
    /// 500 (the free plan's).
    public static func dailyLimit(environment: [String: String]) -> Int {
        environment["PLANTGUIDE_PLANTNET_DAILY_LIMIT"].flatMap { Int($0) }.map { max(0, $0) } ?? 500
    }

    /// The state for a data directory: over `store` when there is one, over the files otherwise. With an SQLite store,
    /// the files an older PlantGuide wrote (`plantnet-quota.json`, `plantnet-cache.json`) are moved into it once and
    /// renamed `*.imported`.
    public static func live(
        directory: DataDirectory, store: (any PlantNetStateStore)?, environment: [String: String],
        now: @escaping @Sendable () -> Date = { Date() }, warn: @escaping @Sendable (String) -> Void
    ) -> PlantNetState {
        let quotaFile = directory.appending("plantnet-quota.json")
        let cacheFile = directory.appending("plantnet-cache.json")
        guard let store else {
            return PlantNetState(quota: QuotaTracker(file: quotaFile, now: now), cache: IdentificationCache(file: cacheFile, now: now, warn: warn))
        }
        let limit = dailyLimit(environment: environment)
        if let database = store as? CollectionDatabase {
            importFiles(quota: quotaFile, cache: cacheFile, into: database, dailyLimit: limit, now: now, warn: warn)
        }
        let cache = StoreAnswerCache(store: store, now: now)
        return PlantNetState(
            quota: StoreQuotaLedger(store: store, dailyLimit: limit, now: now), cache: cache, diagnoses: cache
        )
    }

    /// The state for a data directory, in the collection's store when it keeps this state (every store PlantGuide has
    /// does).
    public static func live(
        directory: DataDirectory, collection: PlantCollection?, environment: [String: String],
        now: @escaping @Sendable () -> Date = { Date() }, warn: @escaping @Sendable (String) -> Void
    ) -> PlantNetState {
        live(directory: directory, store: collection?.store, environment: environment, now: now, warn: warn)
    }

    /// Where an imported file is kept: `NAME.imported`, or `NAME.imported-<time>` when an earlier import's copy is there
    /// (never overwritten: two processes starting at once must not delete each other's copy).
    package static func keptAside(_ file: URL) -> URL {
        let plain = file.appendingPathExtension("imported")
        guard FileManager.default.fileExists(atPath: plain.path) else { return plain }
        return file.appendingPathExtension("imported-\(Int(Date().timeIntervalSince1970))-\(UUID().uuidString.prefix(8))")
    }

    /// Moves the quota and cache files into the database, once; a file that cannot be read is left where it is.
    static func importFiles(
        quota: URL, cache: URL, into database: CollectionDatabase, dailyLimit: Int, now: @escaping @Sendable () -> Date,
        warn: @escaping @Sendable (String) -> Void
    ) {
        let files = FileManager.default
        if files.fileExists(atPath: quota.path) {
            let status = QuotaTracker(file: quota, now: now).status()
            let time = now()
            let day = StoreQuotaLedger.day(of: time)
            do {
                if status.isBlocked {
                    _ = try database.blockPlantNet(until: status.resetsAt, day: day, dailyLimit: dailyLimit, now: time)
                } else if let remaining = status.remaining {
                    _ = try database.reportPlantNetRemaining(remaining, day: day, dailyLimit: dailyLimit, now: time)
                }
                try files.moveItem(at: quota, to: keptAside(quota))
            } catch {
                warn("the Pl@ntNet quota file \(quota.path) was not moved into the database: \(error)")
            }
        }
        if files.fileExists(atPath: cache.path) {
            let entries = IdentificationCache(file: cache, now: now, warn: warn).storedEntries()
            do {
                for entry in entries.sorted(by: { $0.lastUsed < $1.lastUsed }) {
                    try database.storeCachedAnswer(
                        try StoreAnswerCache.row(entry.answer, for: entry.key, stored: entry.stored, lastUsed: entry.lastUsed),
                        capacity: StoreAnswerCache.capacity, freshAfter: now().addingTimeInterval(-StoreAnswerCache.timeToLive)
                    )
                }
                try files.moveItem(at: cache, to: keptAside(cache))
            } catch {
                warn("the identification cache \(cache.path) was not moved into the database: \(error)")
            }
        }
    }
}

/// The daily quota in the store: one row per UTC day, each request reserved by one atomic update.
public struct StoreQuotaLedger: QuotaLedger {
    let store: any PlantNetStateStore
    let dailyLimit: Int
    let now: @Sendable () -> Date

    /// A ledger over `store`, allowing `dailyLimit` requests a day until Pl@ntNet reports its own count.
    public init(store: any PlantNetStateStore, dailyLimit: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.dailyLimit = dailyLimit
        self.now = now
    }

    public func status() async -> PlantNetAPI.QuotaStatus {
        let time = now()
        guard let row = try? await store.plantNetQuota(day: Self.day(of: time), dailyLimit: dailyLimit, now: time) else {
            // A store that cannot be read does not block identifying: Pl@ntNet still refuses what it must.
            return PlantNetAPI.QuotaStatus(remaining: nil, resetsAt: QuotaCalendar.nextReset(after: time), level: .unknown)
        }
        return Self.status(row, at: time)
    }

    public func reserve(keeping floor: Int) async throws(PlantNetError) -> QuotaReservation {
        let time = now()
        let day = Self.day(of: time)
        let taken: PlantNetQuotaRow?
        do {
            taken = try await store.reservePlantNetRequest(day: day, dailyLimit: dailyLimit, floor: floor, now: time)
        } catch {
            // A store that cannot be written does not stop identifying: the call goes uncounted.
            return QuotaReservation(day: nil, status: await status())
        }
        if let taken { return QuotaReservation(day: day, status: Self.status(taken, at: time)) }
        throw .quotaExhausted(resetsAt: await status().resetsAt)
    }

    public func settle(_ reservation: QuotaReservation, remaining: Int?) async throws(PlantNetError) -> PlantNetAPI.QuotaStatus {
        let time = now()
        // A report belongs to the day the request was counted on, also when the answer comes after midnight.
        let day = reservation.day ?? Self.day(of: time)
        do {
            let row = if let remaining {
                try await store.reportPlantNetRemaining(remaining, day: day, dailyLimit: dailyLimit, now: time)
            } else {
                try await store.plantNetQuota(day: day, dailyLimit: dailyLimit, now: time)
            }
            return Self.status(row, at: time)
        } catch {
            throw .storage("the Pl@ntNet quota could not be recorded: \(error)")
        }
    }

    public func cancel(_ reservation: QuotaReservation) async {
        guard let day = reservation.day else { return }
        try? await store.cancelPlantNetReservation(day: day, now: now())
    }

    public func recordExhausted(resetsAt: Date) async throws(PlantNetError) -> PlantNetAPI.QuotaStatus {
        let time = now()
        // The quota resets daily: a reset further away than a day is a malformed answer, not a reason to block longer.
        let until = min(max(resetsAt, time), time.addingTimeInterval(25 * 3600))
        do {
            return Self.status(
                try await store.blockPlantNet(until: until, day: Self.day(of: time), dailyLimit: dailyLimit, now: time), at: time
            )
        } catch {
            throw .storage("the Pl@ntNet quota could not be recorded: \(error)")
        }
    }

    /// The UTC day of `date`, `YYYY-MM-DD`: the quota's day.
    public static func day(of date: Date) -> String {
        CalendarDay(date, in: TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current).description
    }

    /// What a row means: the count is known once Pl@ntNet has reported it today; calls are blocked after a 429 (none
    /// left until the block ends) or when nothing is available.
    static func status(_ row: PlantNetQuotaRow, at time: Date) -> PlantNetAPI.QuotaStatus {
        let blocked = row.blockedUntil != nil || row.available <= 0
        let remaining = row.blockedUntil != nil ? 0 : row.lastReported == nil ? nil : row.available
        return PlantNetAPI.QuotaStatus(
            remaining: remaining, resetsAt: row.blockedUntil ?? QuotaCalendar.nextReset(after: time),
            level: QuotaLevel(remaining: remaining, blocked: blocked)
        )
    }
}

/// The answer cache in the store: the same rules as the file cache (7 days, 100 entries, near copies by perceptual
/// hash), shared by every process and replica.
public struct StoreAnswerCache: AnswerCache {
    /// Entries kept at most.
    static let capacity = IdentificationCache.defaultCapacity
    /// How long an entry answers.
    static let timeToLive = IdentificationCache.defaultTimeToLive

    let store: any PlantNetStateStore
    let now: @Sendable () -> Date

    /// A cache over `store`.
    public init(store: any PlantNetStateStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    public func answer(for key: CacheKey) async -> PlantNetAnswer? {
        await lookUp(PlantNetAnswer.self, for: key)?.servedFromCache
    }

    public func keep(_ answer: PlantNetAnswer, for key: CacheKey) async throws(PlantNetError) {
        try await store(answer, for: key)
    }

    /// The fresh entry for these photos (the exact photos first, else a near copy when every photo has a perceptual
    /// hash, unless `nearCopies` is false) decoded as `type`; the use is counted, a miss too.
    private func lookUp<Answer: Decodable>(_ type: Answer.Type, for key: CacheKey, nearCopies: Bool = true) async -> Answer? {
        let time = now()
        guard let rows = try? await store.cachedAnswers(
            project: key.project, language: key.language, organs: Self.organs(key), freshAfter: time.addingTimeInterval(-Self.timeToLive)
        ) else { return nil }
        var found = rows.first { $0.exactKey == key.exactKey }
        if found == nil, nearCopies, key.perceptualHashes.contains(where: { $0 != nil }) {
            found = rows.first { row in Self.perceptualHashes(of: row).map { key.resembles(perceptualHashes: $0) } ?? false }
        }
        guard let found, let answer = try? Self.decoder.decode(Answer.self, from: Data(found.answer.utf8)) else {
            try? await store.recordAnswerCacheUse(exactKey: nil, now: time)
            return nil
        }
        try? await store.recordAnswerCacheUse(exactKey: found.exactKey, now: time)
        return answer
    }

    private func store<Answer: Encodable>(_ answer: Answer, for key: CacheKey) async throws(PlantNetError) {
        let time = now()
        do {
            try await store.storeCachedAnswer(
                try Self.row(answer, for: key, stored: time, lastUsed: time), capacity: Self.capacity,
                freshAfter: time.addingTimeInterval(-Self.timeToLive)
            )
        } catch {
            throw .storage("the answer could not be cached: \(error)")
        }
    }

    public func statistics() async -> CacheStatistics {
        let counts = (try? await store.answerCacheCounts(freshAfter: now().addingTimeInterval(-Self.timeToLive))) ?? AnswerCacheCounts()
        return CacheStatistics(
            entries: counts.entries, expired: counts.expired, capacity: Self.capacity, timeToLiveDays: Self.timeToLive / 86_400,
            hits: counts.hits, misses: counts.misses, oldest: counts.oldest, newest: counts.newest, fileBytes: 0
        )
    }

    public func clear() async throws(PlantNetError) -> Int {
        do {
            return try await store.clearAnswerCache()
        } catch {
            throw .storage("the identification cache could not be cleared: \(error)")
        }
    }

    /// The row that stores `answer` for `key`.
    static func row<Answer: Encodable>(_ answer: Answer, for key: CacheKey, stored: Date, lastUsed: Date) throws -> CachedAnswerRow {
        CachedAnswerRow(
            exactKey: key.exactKey, project: key.project, language: key.language, organs: organs(key),
            perceptualHashes: String(decoding: try encoder.encode(key.perceptualHashes), as: UTF8.self),
            answer: String(decoding: try encoder.encode(answer), as: UTF8.self), storedAt: stored, lastUsedAt: lastUsed
        )
    }

    private static func organs(_ key: CacheKey) -> String { key.organs.map(\.rawValue).joined(separator: ",") }

    /// Each stored photo's perceptual hash (`nil` for one without).
    private static func perceptualHashes(of row: CachedAnswerRow) -> [UInt64?]? {
        try? decoder.decode([UInt64?].self, from: Data(row.perceptualHashes.utf8))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
