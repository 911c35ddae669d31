import Foundation

/// Pl@ntNet's answers kept by photo, so the same photo (or a near copy: a re-save, a resize) is not sent twice
/// within the time to live. ``IdentificationCache`` keeps them in a file; the collection database keeps them where
/// every replica sees them.
public protocol AnswerCache: Sendable {
    /// The fresh answer stored for these photos, exactly or by perceptual hash, marked as coming from the cache;
    /// `nil` on a miss. A hit counts as a use (for keeping the most used), and is saved.
    func answer(for key: CacheKey) async -> PlantNetAnswer?
    /// Stores an answer; a failure is thrown (the caller decides whether it matters).
    func keep(_ answer: PlantNetAnswer, for key: CacheKey) async throws(PlantNetError)
    /// Entries, hits and misses, for `plantguide cache stats` and Settings.
    func statistics() async -> CacheStatistics
    /// Removes every entry; returns how many there were.
    @discardableResult
    func clear() async throws(PlantNetError) -> Int
}

extension IdentificationCache: AnswerCache {
    /// Looks up and saves the use at once (``lookup(_:)`` then ``flush()``; a use that cannot be saved costs nothing).
    public func answer(for key: CacheKey) async -> PlantNetAnswer? {
        let found = lookup(key)
        if found != nil { try? flush() }
        return found
    }

    /// ``store(_:for:)``.
    public func keep(_ answer: PlantNetAnswer, for key: CacheKey) async throws(PlantNetError) {
        try store(answer, for: key)
    }
}

extension CacheKey {
    /// The key as one string: project, language, and each photo's organ and SHA-256 in order.
    public var exactKey: String { exact }
}

extension PlantNetAnswer {
    /// The answer as a cache hit gives it: from the cache, with no request timing and no quota figures (no request
    /// was made).
    public var servedFromCache: PlantNetAnswer {
        var answer = self
        answer.identification.source = .cache
        answer.identification.timings[stage: .request] = nil
        answer.remainingRequests = nil
        answer.secondsUntilReset = nil
        return answer
    }
}
