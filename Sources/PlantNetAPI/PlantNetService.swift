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
    public let quota: any QuotaLedger
    /// Answers by photo; `nil` disables caching.
    public let cache: (any AnswerCache)?
    /// Told when an answer could not be cached (it is still answered).
    public let warn: @Sendable (String) -> Void
    /// The offline back-off.
    public let reachability: Reachability
    /// Where the reference photos of answers are kept; `nil` keeps none.
    public let referenceImages: ReferenceImageStore?
    /// Disease answers by photo; `nil` disables caching them.
    public let diagnoses: (any DiagnosisCache)?
    /// The disease list, kept 30 days; `nil` asks for it each time it is needed.
    public let diseaseList: DiseaseListCache?

    /// Assembles a service from its parts.
    public init(
        client: PlantNetClient, quota: any QuotaLedger, cache: (any AnswerCache)?, reachability: Reachability,
        referenceImages: ReferenceImageStore? = nil, diagnoses: (any DiagnosisCache)? = nil,
        diseaseList: DiseaseListCache? = nil, warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.diagnoses = diagnoses
        self.diseaseList = diseaseList
        self.warn = warn
        self.client = client
        self.quota = quota
        self.cache = cache
        self.reachability = reachability
        self.referenceImages = referenceImages
    }

    /// Identifies one plant from 1–5 prepared photos, from the cache when it can.
    /// - Parameter floor: requests to leave for others (see ``QuotaLedger/reserve(keeping:)``); a re-check run keeps some.
    public func identify(
        _ images: [PlantNetImage], options: PlantNetOptions = PlantNetOptions(), keeping floor: Int = 0
    ) async throws(PlantNetError) -> PlantNetAnswer {
        try PlantNetRequestRules.validate(images, options: options)
        let key = CacheKey(images: images, options: options)
        if let cached = await cache?.answer(for: key) { return cached }
        let (answer, status) = try await paidRequest(keeping: floor, remaining: \.remainingRequests) { () throws(PlantNetError) in
            try await client.identify(images, options: options)
        }
        var result = answer
        // Reference photos are kept before caching, so the cached answer points at the local copies.
        if let referenceImages {
            result.identification = await referenceImages.keep(answer.identification)
        }
        // The call was made and counted: a cache that cannot be written only costs a later repeat call.
        do {
            try await cache?.keep(result, for: key)
        } catch {
            warn("the identification could not be cached (\(error)); it is still answered")
        }
        result.remainingRequests = answer.remainingRequests ?? status?.remaining
        return result
    }

    /// One request that spends the quota: refused during the offline back-off, a request reserved first, given back
    /// when nothing was answered, and settled with what the answer says is left (`remaining`).
    /// - Returns: the answer and the quota after it (`nil` when it could not be read).
    func paidRequest<Answer>(
        keeping floor: Int, remaining: (Answer) -> Int?, _ call: () async throws(PlantNetError) -> Answer
    ) async throws(PlantNetError) -> (Answer, QuotaStatus?) {
        if let until = reachability.retryAfter {
            throw .offline("the last connection failed; not retrying before \(PlantNetError.format(until))")
        }
        let reservation = try await quota.reserve(keeping: floor)
        let answer: Answer
        do {
            answer = try await call()
        } catch {
            switch error {
            case .quotaExhausted(let resetsAt):
                _ = try? await quota.recordExhausted(resetsAt: resetsAt)
            default:
                // No answer to count (offline, refused, malformed): the request is given back, since a count can only
                // be lowered by reports later. Should Pl@ntNet have counted it, its next report says so.
                if case .offline = error { reachability.markUnreachable() }
                await quota.cancel(reservation)
            }
            throw error
        }
        reachability.markReachable()
        return (answer, try? await quota.settle(reservation, remaining: remaining(answer)))
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
