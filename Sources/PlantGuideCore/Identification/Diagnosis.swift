import Foundation

/// What a disease service said about photos of a sick plant: the diseases it finds likely, best first, each named by
/// its EPPO code (the European and Mediterranean Plant Protection Organization's code, e.g. `PHYTIN` for late blight).
/// No candidate is a normal answer: the service found no disease it knows.
public struct Diagnosis: Sendable, Codable, Hashable {
    /// Where the answer came from: `plantNetAPI`, or `cache` when the same photos were asked about recently.
    public var source: IdentificationSource
    /// The service's version, e.g. `Pl@ntNet 2025-01-17 (7.3)`.
    public var model: String
    /// The likely diseases, best first.
    public var candidates: [DiseaseCandidate]
    /// The language the service was asked to name them in.
    public var language: String
    /// Milliseconds the request took (absent for a cached answer).
    public var milliseconds: Double?
    /// When the service answered.
    public var date: Date

    /// Creates a diagnosis.
    public init(
        source: IdentificationSource, model: String, candidates: [DiseaseCandidate], language: String,
        milliseconds: Double? = nil, date: Date
    ) {
        self.source = source
        self.model = model
        self.candidates = candidates
        self.language = language
        self.milliseconds = milliseconds
        self.date = date
    }

    /// Below this score no candidate is a confident answer (the same bar as identification's).
    public static let confidentScore = 0.7

    /// Whether the best candidate scores at least ``confidentScore``.
    public var isConfident: Bool { (candidates.first?.score ?? 0) >= Self.confidentScore }
}

/// One likely disease.
public struct DiseaseCandidate: Sendable, Codable, Hashable {
    /// 1 for the best.
    public var rank: Int
    /// The EPPO code, e.g. `PHYTIN`.
    public var eppoCode: String
    /// Its name in the language asked for: the answer's own description, else the service's disease list's label;
    /// `nil` when neither names it (the code is then all there is to show).
    public var name: String?
    /// Whether the service's disease list has this code (`nil` when the list could not be read).
    public var inDiseaseList: Bool?
    /// The service's score, 0 to 1.
    public var score: Double
    /// Photos of the disease from the service's collection, with their credits.
    public var referenceImages: [ReferenceImage]

    /// Creates a candidate.
    public init(
        rank: Int, eppoCode: String, name: String?, inDiseaseList: Bool? = nil, score: Double,
        referenceImages: [ReferenceImage] = []
    ) {
        self.rank = rank
        self.eppoCode = eppoCode
        self.name = name
        self.inDiseaseList = inDiseaseList
        self.score = score
        self.referenceImages = referenceImages
    }

    /// "Late blight (PHYTIN)", or the code alone when nothing names it.
    public var title: String { name.map { "\($0) (\(eppoCode))" } ?? eppoCode }
}

/// A disease the service knows (`GET /v2/diseases`).
public struct KnownDisease: Sendable, Codable, Hashable {
    /// The EPPO code.
    public var eppoCode: String
    /// Its common name in the language asked for, when given.
    public var label: String?
    /// The service's categories for it, when given.
    public var categories: [String]

    /// Creates an entry.
    public init(eppoCode: String, label: String?, categories: [String] = []) {
        self.eppoCode = eppoCode
        self.label = label
        self.categories = categories
    }
}
