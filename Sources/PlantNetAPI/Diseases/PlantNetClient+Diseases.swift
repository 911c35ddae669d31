import AsyncHTTPClient
import Foundation
import PlantGuideCore
import PlantHTTP

/// Options of one disease request (the query of `POST /v2/diseases/identify`).
public struct DiagnosisOptions: Sendable, Hashable, Codable {
    /// Language of the diseases' names and descriptions, e.g. `en`.
    public var language: String
    /// How many candidates to ask for.
    public var resultCount: Int
    /// Whether to include photos of each candidate disease.
    public var includeRelatedImages: Bool
    /// Whether to ask for candidates even when the photo does not look like a plant.
    public var noReject: Bool

    /// Creates options: English, 5 candidates, with their photos.
    public init(language: String = "en", resultCount: Int = 5, includeRelatedImages: Bool = true, noReject: Bool = false) {
        self.language = language
        self.resultCount = resultCount
        self.includeRelatedImages = includeRelatedImages
        self.noReject = noReject
    }
}

/// What one disease request returned.
public struct DiagnosisAnswer: Sendable, Codable, Hashable {
    /// The likely diseases (none is a normal answer: no disease the service knows was found).
    public var diagnosis: Diagnosis
    /// Whether the service refused the photos as showing no plant (its 404 "not found").
    public var rejected: Bool
    /// Requests left today, from the answer's body or its `RateLimit` header.
    public var remainingRequests: Int?
    /// Seconds until the quota resets, from the `RateLimit` header.
    public var secondsUntilReset: Int?

    /// Creates an answer.
    public init(diagnosis: Diagnosis, rejected: Bool, remainingRequests: Int?, secondsUntilReset: Int?) {
        self.diagnosis = diagnosis
        self.rejected = rejected
        self.remainingRequests = remainingRequests
        self.secondsUntilReset = secondsUntilReset
    }

    /// The answer as a cache hit gives it: from the cache, without request timing or quota figures.
    public var servedFromCache: DiagnosisAnswer {
        var answer = self
        answer.diagnosis.source = .cache
        answer.diagnosis.milliseconds = nil
        answer.remainingRequests = nil
        answer.secondsUntilReset = nil
        return answer
    }
}

extension PlantNetRequestRules {
    /// The organs the disease service takes (its documentation names leaf, flower, fruit, bark and auto).
    public static let diagnosisOrgans: [PlantNetOrgan] = [.leaf, .flower, .fruit, .bark, .auto]

    /// Throws `invalidRequest` when the photos cannot be sent to the disease service as they are: none or more than
    /// five, an organ it does not take, more than 50 MB, or a result count outside 1–100.
    public static func validateDiagnosis(_ images: [PlantNetImage], options: DiagnosisOptions) throws(PlantNetError) {
        guard !images.isEmpty else { throw .invalidRequest("at least one photo is needed.") }
        guard images.count <= maximumImages else {
            throw .invalidRequest("at most \(maximumImages) photos of one plant per request (got \(images.count)).")
        }
        try validateDiagnosis(organs: images.map(\.organ))
        let total = images.reduce(0) { $0 + $1.jpeg.count }
        guard total <= maximumTotalBytes else { throw .payloadTooLarge(bytes: total) }
        guard (1...100).contains(options.resultCount) else {
            throw .invalidRequest("the number of results must be between 1 and 100.")
        }
    }

    /// Throws `invalidRequest` for an organ the disease service does not take (habit, other).
    public static func validateDiagnosis(organs: [PlantNetOrgan]) throws(PlantNetError) {
        if let refused = organs.first(where: { !diagnosisOrgans.contains($0) }) {
            throw .invalidRequest(
                "the disease service takes photos of a leaf, flower, fruit or bark (or auto), not '\(refused.rawValue)': "
                    + "photograph the sick part up close."
            )
        }
    }
}

extension PlantNetClient {
    /// Asks which diseases photos of one sick plant show (`POST /v2/diseases/identify`). One request of the daily quota.
    ///
    /// An answer with no disease is a normal answer; so is a 404 "not found" (``DiagnosisAnswer/rejected``).
    public func diagnose(_ images: [PlantNetImage], options: DiagnosisOptions = DiagnosisOptions()) async throws(PlantNetError)
        -> DiagnosisAnswer {
        guard let key = configuration.apiKey else { throw .missingAPIKey }
        try PlantNetRequestRules.validateDiagnosis(images, options: options)
        do throws(PlantNetError) {
            let (answer, milliseconds) = try await postPhotos(
                images, path: "v2/diseases/identify", key: key, summary: "diagnosis, ",
                query: (options.includeRelatedImages, options.noReject, options.resultCount, options.language)
            )
            return try interpretDiagnosis(answer, language: options.language, milliseconds: milliseconds)
        } catch {
            throw error.redacting(key)
        }
    }

    /// The diseases the service knows (`GET /v2/diseases`), with their names in `language`.
    public func knownDiseases(language: String = "en") async throws(PlantNetError) -> [KnownDisease] {
        let entries = try await list(DiseaseListEntry.self, path: "v2/diseases", language: language, what: "disease list")
        return entries.compactMap { entry in
            guard let code = entry.name.nonBlank else { return nil }
            return KnownDisease(eppoCode: code, label: entry.label.nonBlank, categories: entry.categories ?? [])
        }
    }

    private func interpretDiagnosis(_ answer: HTTPAnswer, language: String, milliseconds: Double) throws(PlantNetError)
        -> DiagnosisAnswer {
        let header = answer.header("RateLimit").flatMap(RateLimitHeader.init)
        switch answer.status {
        case 200:
            let decoded: DiseaseIdentifyResponse
            do {
                decoded = try JSONDecoder().decode(DiseaseIdentifyResponse.self, from: answer.body)
            } catch {
                throw .malformedResponse("the diagnosis did not decode (\(Self.describe(error))).")
            }
            // An entry without a code names nothing; one without a score is kept last, at 0.
            let candidates = decoded.results.compactMap { result -> (String, DiseaseIdentifyResponse.Result)? in
                result.name.nonBlank.map { ($0, result) }
            }.enumerated().map { index, entry in
                DiseaseCandidate(
                    rank: index + 1, eppoCode: entry.0, name: entry.1.description.nonBlank,
                    score: min(max(entry.1.score ?? 0, 0), 1), referenceImages: Self.referenceImages(entry.1.images ?? [])
                )
            }
            let diagnosis = Diagnosis(
                source: .plantNetAPI, model: decoded.version.map { "Pl@ntNet \($0)" } ?? "Pl@ntNet", candidates: candidates,
                language: decoded.language.nonBlank ?? language, milliseconds: milliseconds, date: now()
            )
            return DiagnosisAnswer(
                diagnosis: diagnosis, rejected: false,
                remainingRequests: decoded.remainingIdentificationRequests ?? header?.remaining,
                secondsUntilReset: header?.secondsUntilReset
            )
        case 404:
            let message = Self.errorMessage(in: answer.body)
            guard message.isEmpty || message.localizedCaseInsensitiveContains("not found") else {
                throw .unexpectedStatus(404, message)
            }
            let diagnosis = Diagnosis(
                source: .plantNetAPI, model: "Pl@ntNet", candidates: [], language: language, milliseconds: milliseconds,
                date: now()
            )
            return DiagnosisAnswer(
                diagnosis: diagnosis, rejected: true, remainingRequests: header?.remaining,
                secondsUntilReset: header?.secondsUntilReset
            )
        default:
            throw mapFailure(answer)
        }
    }
}
