import Foundation
import PlantGuideCore

/// The online identifier as the rest of PlantGuide uses it: the ``PlantNetClient`` behind the
/// ``IdentificationCache``, the ``QuotaTracker`` and the offline back-off (``Reachability``).
///
/// Order of one call: validate → cache (a hit makes no request) → offline back-off → quota → request →
/// record quota → store in cache (a failure to store only warns: the answer was paid for).
public final class PlantNetService: Sendable {
    /// The HTTP client.
    public let client: PlantNetClient
    /// The daily quota.
    public let quota: QuotaTracker
    /// Answers by photo; `nil` disables caching.
    public let cache: IdentificationCache?
    /// The offline back-off.
    public let reachability: Reachability
    /// Where the reference photos of answers are kept; `nil` keeps none.
    public let referenceImages: ReferenceImageStore?

    /// Assembles a service from its parts.
    public init(
        client: PlantNetClient, quota: QuotaTracker, cache: IdentificationCache?, reachability: Reachability,
        referenceImages: ReferenceImageStore? = nil
    ) {
        self.client = client
        self.quota = quota
        self.cache = cache
        self.reachability = reachability
        self.referenceImages = referenceImages
    }

    /// Identifies one plant from 1–5 prepared photos, from the cache when it can.
    public func identify(_ images: [PlantNetImage], options: PlantNetOptions = PlantNetOptions()) async throws(PlantNetError)
        -> PlantNetAnswer {
        try PlantNetRequestRules.validate(images, options: options)
        let key = CacheKey(images: images, options: options)
        if let cached = cache?.lookup(key) {
            try? cache?.flush()
            return cached
        }
        if let until = reachability.retryAfter {
            throw .offline("the last connection failed; not retrying before \(PlantNetError.format(until))")
        }
        try quota.checkAvailable()
        let answer: PlantNetAnswer
        do {
            answer = try await client.identify(images, options: options)
        } catch {
            switch error {
            case .offline: reachability.markUnreachable()
            case .quotaExhausted(let resetsAt): _ = try? quota.recordExhausted(resetsAt: resetsAt)
            default: break
            }
            throw error
        }
        reachability.markReachable()
        var result = answer
        let status = try? quota.record(remaining: answer.remainingRequests)
        // Reference photos are kept before caching, so the cached answer points at the local copies.
        if let referenceImages {
            result.identification = await referenceImages.keep(answer.identification)
        }
        // The call was made and counted: a cache that cannot be written only costs a later repeat call.
        cache?.storeKeepingAnswer(result, for: key)
        result.remainingRequests = answer.remainingRequests ?? status?.remaining
        return result
    }

    /// Asks the service whether it can be reached now (the project list: no identification, no quota spent), and
    /// records the answer, so the next identification does not wait out the back-off after a failure.
    /// - Returns: whether it answered.
    @discardableResult
    public func checkConnection() async -> Bool {
        do {
            _ = try await client.projects()
            reachability.markReachable()
            return true
        } catch {
            switch error {
            case .offline, .timeout:
                reachability.markUnreachable()
                return false
            default:
                // It answered (with an error about the key or the request): it can be reached.
                reachability.markReachable()
                return true
            }
        }
    }
}
