import Foundation
import PlantGuideCore

/// Disease answers kept by photo, in their own key space (``CacheKey/diagnosis(of:options:)``): the same photos are
/// not sent twice while they are kept.
public protocol DiagnosisCache: Sendable {
    /// The fresh answer stored for exactly these photos (a near copy does not count: a results page names the photos
    /// it was made for), marked as coming from the cache; `nil` on a miss.
    func diagnosis(for key: CacheKey) async -> DiagnosisAnswer?
    /// Stores an answer; a failure is thrown (the caller decides whether it matters).
    func keep(_ answer: DiagnosisAnswer, for key: CacheKey) async throws(PlantNetError)
}

extension CacheKey {
    /// The project name disease answers are kept under: no flora can be called this (project names are letters,
    /// digits, `-` and `_`), so a diagnosis never answers an identification.
    public static let diagnosisProject = "~diseases"

    /// The key of a disease request: its photos, their organs, the language and how many candidates were asked for
    /// (an answer with fewer does not stand for one with more).
    public static func diagnosis(of images: [PlantNetImage], options: DiagnosisOptions) -> CacheKey {
        CacheKey(
            images: images,
            options: PlantNetOptions(project: "\(diagnosisProject)-\(options.resultCount)", language: options.language)
        )
    }

    /// The key of a disease request about photos known by the SHA-256 of their original files (as a results page's
    /// address names them).
    public static func diagnosis(sha256s: [String], organs: [PlantNetOrgan], options: DiagnosisOptions) -> CacheKey {
        let images = zip(sha256s, organs).map { PlantNetImage(jpeg: Data(), organ: $1, sha256: $0) }
        return diagnosis(of: images, options: options)
    }
}

/// What to suggest when a diagnosis is not a confident answer: only steps that follow from how the service works.
/// The command line and the web app print the same.
public enum DiagnosisAdvice {
    /// The steps, none when the best candidate scores at least 70 %.
    /// - Parameter careHint: where the plant's care can be checked, in the caller's words.
    public static func nextSteps(for answer: DiagnosisAnswer, careHint: String) -> [String] {
        if answer.diagnosis.isConfident, !answer.rejected { return [] }
        var steps: [String] = []
        if answer.rejected {
            steps.append("Photograph the affected part of the plant up close, filling the frame, in daylight.")
        } else {
            steps.append("Compare your plant with each candidate's photos before acting on it: no candidate scores 70 % or more.")
            steps.append("Add photos of the upper and lower side of an affected leaf (up to 5, one request).")
        }
        steps.append(
            "Pl@ntNet's disease service knows a limited list of diseases and pests; yellowing or drooping from watering, "
                + "light or cold is not in it: \(careHint)."
        )
        return steps
    }
}

/// The diseases the service knows, by language, kept in a JSON file for ``timeToLive`` (the list changes rarely and
/// asking for it costs a round trip per diagnosis otherwise).
public struct DiseaseListCache: Sendable {
    /// How long a fetched list is used: 30 days.
    public static let timeToLive: TimeInterval = 30 * 86_400

    /// The folder of the files (`plantnet-diseases-<lang>.json`).
    public let directory: URL
    private let now: @Sendable () -> Date

    /// A cache in `directory`.
    public init(directory: URL, now: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.now = now
    }

    private struct Stored: Codable {
        var fetchedAt: Date
        var diseases: [KnownDisease]
    }

    /// The list in `language` when one younger than ``timeToLive`` is kept.
    public func list(language: String) -> [KnownDisease]? {
        guard let data = try? Data(contentsOf: file(language)),
              let stored = try? Self.decoder.decode(Stored.self, from: data),
              now().timeIntervalSince(stored.fetchedAt) < Self.timeToLive, stored.fetchedAt <= now().addingTimeInterval(60)
        else { return nil }
        return stored.diseases
    }

    /// Keeps a fetched list; a file that cannot be written only means asking again next time.
    public func keep(_ diseases: [KnownDisease], language: String) {
        guard let data = try? Self.encoder.encode(Stored(fetchedAt: now(), diseases: diseases)) else { return }
        try? AtomicFile.write(data, to: file(language), permissions: 0o644)
    }

    private func file(_ language: String) -> URL {
        let safe = language.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" }.prefix(16)
        return directory.appendingPathComponent("plantnet-diseases-\(String(String.UnicodeScalarView(safe))).json")
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

extension PlantNetService {
    /// Asks which diseases 1–5 prepared photos of one sick plant show, from the cache when it can: the same checks,
    /// quota (one request of the same daily count as identify), back-off and redaction as ``identify(_:options:keeping:)``.
    /// Each candidate is named from the service's disease list when the answer gives no name, and says whether the list
    /// has its code.
    public func diagnose(
        _ images: [PlantNetImage], options: DiagnosisOptions = DiagnosisOptions(), keeping floor: Int = 0
    ) async throws(PlantNetError) -> DiagnosisAnswer {
        try PlantNetRequestRules.validateDiagnosis(images, options: options)
        let key = CacheKey.diagnosis(of: images, options: options)
        if let cached = await diagnoses?.diagnosis(for: key) { return cached }
        var (answer, status) = try await paidRequest(keeping: floor, remaining: \.remainingRequests) { () throws(PlantNetError) in
            try await client.diagnose(images, options: options)
        }
        answer.diagnosis = await named(answer.diagnosis)
        if let referenceImages { answer.diagnosis = await referenceImages.keep(answer.diagnosis) }
        do {
            try await diagnoses?.keep(answer, for: key)
        } catch {
            warn("the diagnosis could not be cached (\(error)); it is still answered")
        }
        answer.remainingRequests = answer.remainingRequests ?? status?.remaining
        return answer
    }

    /// The diseases the service knows in `language`: the kept list when it is younger than 30 days, else fetched (no
    /// quota is spent on it) and kept.
    public func knownDiseases(language: String) async throws(PlantNetError) -> [KnownDisease] {
        if let kept = diseaseList?.list(language: language) { return kept }
        let fetched = try await client.knownDiseases(language: language)
        // An empty list (or one whose entries all lacked a code) is used once, not kept for 30 days.
        if !fetched.isEmpty { diseaseList?.keep(fetched, language: language) }
        return fetched
    }

    /// The diagnosis with names from the disease list where the answer gave none, and each candidate marked as in the
    /// list or not; unchanged when the list cannot be had (a diagnosis is never refused for it).
    private func named(_ diagnosis: Diagnosis) async -> Diagnosis {
        guard !diagnosis.candidates.isEmpty, let list = try? await knownDiseases(language: diagnosis.language) else {
            return diagnosis
        }
        let byCode = Dictionary(list.map { ($0.eppoCode.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var result = diagnosis
        for index in result.candidates.indices {
            let known = byCode[result.candidates[index].eppoCode.uppercased()]
            result.candidates[index].inDiseaseList = known != nil
            if result.candidates[index].name == nil { result.candidates[index].name = known?.label }
        }
        return result
    }
}
