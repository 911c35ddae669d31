import Foundation

/// Today's row of the Pl@ntNet quota: one per UTC day, for the installation's key.
public struct PlantNetQuotaRow: Sendable, Hashable {
    /// The UTC day, `YYYY-MM-DD`.
    public var day: String
    /// Requests that may still be made today: the daily limit at first, lowered by each reservation and by what
    /// Pl@ntNet reports.
    public var available: Int
    /// Requests reserved today.
    public var spent: Int
    /// What Pl@ntNet last reported as left today; `nil` before its first answer of the day.
    public var lastReported: Int?
    /// Calls are blocked until then (after a 429), when that is still ahead; the latest such time of any day.
    public var blockedUntil: Date?

    /// Creates a row.
    public init(day: String, available: Int, spent: Int, lastReported: Int?, blockedUntil: Date?) {
        self.day = day
        self.available = available
        self.spent = spent
        self.lastReported = lastReported
        self.blockedUntil = blockedUntil
    }
}

/// One stored Pl@ntNet answer of the shared cache, as the store keeps it (the answer as JSON text).
public struct CachedAnswerRow: Sendable, Hashable {
    /// The exact key: project, language, and each photo's organ and SHA-256.
    public var exactKey: String
    public var project: String
    public var language: String
    /// The organs in photo order, comma-separated: near copies are looked for among entries of the same organs.
    public var organs: String
    /// Each photo's perceptual hash (or `null`), as a JSON array of numbers.
    public var perceptualHashes: String
    /// The answer as JSON.
    public var answer: String
    public var storedAt: Date
    public var lastUsedAt: Date
    /// How many lookups it answered.
    public var hits: Int

    /// Creates a row.
    public init(
        exactKey: String, project: String, language: String, organs: String, perceptualHashes: String, answer: String,
        storedAt: Date, lastUsedAt: Date, hits: Int = 0
    ) {
        self.exactKey = exactKey
        self.project = project
        self.language = language
        self.organs = organs
        self.perceptualHashes = perceptualHashes
        self.answer = answer
        self.storedAt = storedAt
        self.lastUsedAt = lastUsedAt
        self.hits = hits
    }
}

/// The shared cache's counts.
public struct AnswerCacheCounts: Sendable, Hashable {
    /// Entries still fresh.
    public var entries = 0
    /// Entries past their time to live, not yet removed.
    public var expired = 0
    /// Lookups answered, over the fresh and expired entries kept.
    public var hits = 0
    /// Lookups not answered since the cache began.
    public var misses = 0
    /// When the oldest and newest fresh entries were stored.
    public var oldest: Date?
    public var newest: Date?

    /// No entries.
    public init() {}
}

/// The Pl@ntNet state every process and replica must share: the daily quota and the answer cache.
///
/// Every requirement is one transaction. ``reservePlantNetRequest(day:dailyLimit:floor:now:)`` is one atomic update,
/// so however many callers race for the last request, one gets it.
public protocol PlantNetStateStore: Sendable {
    /// Today's quota row (created with `dailyLimit` available when missing), with the latest block still ahead.
    func plantNetQuota(day: String, dailyLimit: Int, now: Date) async throws(StoreError) -> PlantNetQuotaRow
    /// Takes one request when calls are not blocked and more than `floor` are available; `nil` when refused.
    func reservePlantNetRequest(day: String, dailyLimit: Int, floor: Int, now: Date) async throws(StoreError)
        -> PlantNetQuotaRow?
    /// Gives one reserved request back (it never reached Pl@ntNet).
    func cancelPlantNetReservation(day: String, now: Date) async throws(StoreError)
    /// Records what Pl@ntNet reported as left: the first report of the day sets the count, later ones only lower it
    /// (a report can be older than another caller's reservation).
    func reportPlantNetRemaining(_ remaining: Int, day: String, dailyLimit: Int, now: Date) async throws(StoreError)
        -> PlantNetQuotaRow
    /// Records a 429: calls are blocked until `until`, when Pl@ntNet's quota starts afresh (the day's count goes back to
    /// `dailyLimit` until the next report).
    func blockPlantNet(until: Date, day: String, dailyLimit: Int, now: Date) async throws(StoreError) -> PlantNetQuotaRow

    /// Fresh entries of the same request shape (project, language, organs), most recently used first.
    func cachedAnswers(project: String, language: String, organs: String, freshAfter: Date) async throws(StoreError)
        -> [CachedAnswerRow]
    /// Counts a hit of an entry (its last use and hits), or a miss when `exactKey` is `nil`.
    func recordAnswerCacheUse(exactKey: String?, now: Date) async throws(StoreError)
    /// Stores an entry (replacing one of the same key), drops entries stored before `freshAfter`, and keeps at most
    /// `capacity`, the least recently used going first.
    func storeCachedAnswer(_ row: CachedAnswerRow, capacity: Int, freshAfter: Date) async throws(StoreError)
    /// The cache's counts.
    func answerCacheCounts(freshAfter: Date) async throws(StoreError) -> AnswerCacheCounts
    /// Removes every entry and the miss count; returns how many entries there were.
    func clearAnswerCache() async throws(StoreError) -> Int
}
