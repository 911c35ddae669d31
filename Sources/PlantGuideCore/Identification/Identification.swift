import Foundation

/// Where an identification came from.
public enum IdentificationSource: String, Sendable, Codable, Hashable, CaseIterable {
    /// The on-device CNN.
    case onDevice
    /// The Pl@ntNet identification API.
    case plantNetAPI
    /// A stored answer for the same photo.
    case cache
}

/// One candidate species of an identification.
public struct SpeciesPrediction: Sendable, Codable, Hashable {
    /// 1 for the best candidate.
    public var rank: Int
    /// Scientific name without authorship, e.g. `Monstera deliciosa`.
    public var scientificName: String
    /// Authorship, e.g. `Liebm.`, when known.
    public var authorship: String?
    /// English common names, most used first.
    public var commonNames: [String]
    /// Probability in 0…1.
    public var confidence: Double
    /// Index of the model's output class (on-device results only).
    public var classIndex: Int?
    /// GBIF taxon id (Pl@ntNet results), kept as text as the API sends it.
    public var gbifId: String?
    /// Family, from the source or the catalog.
    public var family: String?
    /// Catalog category, when the species is in the catalog.
    public var category: PlantCategory?
    /// Whether the species is in the bundled catalog ("found in local database").
    public var inCatalog: Bool

    /// Creates a prediction.
    public init(
        rank: Int, scientificName: String, authorship: String? = nil, commonNames: [String] = [],
        confidence: Double, classIndex: Int? = nil, gbifId: String? = nil, family: String? = nil,
        category: PlantCategory? = nil, inCatalog: Bool = false
    ) {
        self.rank = rank
        self.scientificName = scientificName
        self.authorship = authorship
        self.commonNames = commonNames
        self.confidence = confidence
        self.classIndex = classIndex
        self.gbifId = gbifId
        self.family = family
        self.category = category
        self.inCatalog = inCatalog
    }
}

/// The answer to "what plant is this?" from one source.
public struct Identification: Sendable, Codable, Hashable {
    /// Where the answer came from.
    public var source: IdentificationSource
    /// Model or API version that produced it, e.g. `resnet50-plantnet300k` or `2025-01-17 (7.3)`.
    public var model: String?
    /// Candidates, best first.
    public var predictions: [SpeciesPrediction]
    /// Whether the best candidate is below the confidence threshold.
    public var uncertain: Bool
    /// Named durations in milliseconds, e.g. `decode`, `inference`, `request`.
    public var timings: [String: Double]
    /// When the identification was made.
    public var date: Date

    /// Creates an identification.
    public init(
        source: IdentificationSource, model: String? = nil, predictions: [SpeciesPrediction],
        uncertain: Bool, timings: [String: Double] = [:], date: Date = Date()
    ) {
        self.source = source
        self.model = model
        self.predictions = predictions
        self.uncertain = uncertain
        self.timings = timings
        self.date = date
    }

    /// The best candidate, if any.
    public var best: SpeciesPrediction? { predictions.first }
}

/// Identifies plants on the device. A struct of closures so callers can use the live classifier or
/// a test double without knowing which.
public struct OnDeviceIdentifier: Sendable {
    /// Identifies one plant from one or more photos (raw file bytes) of it.
    public var identify: @Sendable (_ photos: [Data], _ top: Int) async throws -> Identification

    /// Creates an identifier from its implementation.
    public init(identify: @escaping @Sendable (_ photos: [Data], _ top: Int) async throws -> Identification) {
        self.identify = identify
    }
}
