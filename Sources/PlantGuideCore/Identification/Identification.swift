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

/// How specific a common name is: of the species itself, or of its genus ("a stonecrop").
public enum CommonNameLevel: String, Sendable, Codable, Hashable, CaseIterable {
    /// The name of this species.
    case species
    /// A name of the whole genus, shown when no name of the species is known.
    case genus
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
    /// The genus, e.g. `Monstera`.
    public var genus: String?
    /// Whether ``commonNames`` name this species or only its genus; `nil` when there is no common name.
    public var commonNameLevel: CommonNameLevel?
    /// Plants of the World Online id (Pl@ntNet results), e.g. `urn:lsid:ipni.org:names:…`.
    public var powoId: String?
    /// One line of care advice from the catalog entry's care profile, when the species is in the catalog.
    public var careSummary: String?
    /// Catalog plants of the same genus (when the species itself is not in the catalog, or beside it),
    /// so a person holding an out-of-catalog answer is one step from a care page.
    public var relatedCatalogPlants: [CatalogPlant]
    /// Photos of this species from the service's collection, to compare with (Pl@ntNet results, at most 4).
    public var referenceImages: [ReferenceImage]
    /// Where the candidate came from when not from the identifier itself: ``CandidateSource/collection`` for a
    /// species named by the owner's confirmed photos (its confidence is then a cosine similarity).
    public var source: CandidateSource?

    /// Creates a prediction.
    public init(
        rank: Int, scientificName: String, authorship: String? = nil, commonNames: [String] = [],
        confidence: Double, classIndex: Int? = nil, gbifId: String? = nil, family: String? = nil,
        category: PlantCategory? = nil, inCatalog: Bool = false, genus: String? = nil,
        commonNameLevel: CommonNameLevel? = nil, powoId: String? = nil, careSummary: String? = nil,
        relatedCatalogPlants: [CatalogPlant] = [], referenceImages: [ReferenceImage] = [], source: CandidateSource? = nil
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
        self.genus = genus
        self.commonNameLevel = commonNameLevel ?? (commonNames.isEmpty ? nil : .species)
        self.powoId = powoId
        self.careSummary = careSummary
        self.relatedCatalogPlants = relatedCatalogPlants
        self.referenceImages = referenceImages
        self.source = source
    }

    private enum CodingKeys: String, CodingKey {
        case rank, scientificName, authorship, commonNames, confidence, classIndex, gbifId, family, category, inCatalog
        case genus, commonNameLevel, powoId, careSummary, relatedCatalogPlants, referenceImages, source
    }

    /// Decodes a prediction, including those stored before genus, name level, related plants and reference images
    /// existed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rank = try container.decode(Int.self, forKey: .rank)
        scientificName = try container.decode(String.self, forKey: .scientificName)
        authorship = try container.decodeIfPresent(String.self, forKey: .authorship)
        commonNames = try container.decodeIfPresent([String].self, forKey: .commonNames) ?? []
        confidence = try container.decode(Double.self, forKey: .confidence)
        classIndex = try container.decodeIfPresent(Int.self, forKey: .classIndex)
        gbifId = try container.decodeIfPresent(String.self, forKey: .gbifId)
        family = try container.decodeIfPresent(String.self, forKey: .family)
        category = try container.decodeIfPresent(PlantCategory.self, forKey: .category)
        inCatalog = try container.decodeIfPresent(Bool.self, forKey: .inCatalog) ?? false
        genus = try container.decodeIfPresent(String.self, forKey: .genus)
        commonNameLevel = try container.decodeIfPresent(CommonNameLevel.self, forKey: .commonNameLevel)
            ?? (commonNames.isEmpty ? nil : .species)
        powoId = try container.decodeIfPresent(String.self, forKey: .powoId)
        careSummary = try container.decodeIfPresent(String.self, forKey: .careSummary)
        relatedCatalogPlants = try container.decodeIfPresent([CatalogPlant].self, forKey: .relatedCatalogPlants) ?? []
        referenceImages = try container.decodeIfPresent([ReferenceImage].self, forKey: .referenceImages) ?? []
        source = try container.decodeIfPresent(CandidateSource.self, forKey: .source)
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
    /// Whether the answer should not be trusted as it stands (see ``uncertainReason``).
    public var uncertain: Bool
    /// Why the answer is uncertain and what to do next, when ``uncertain`` is true.
    public var uncertainReason: String?
    /// How many photos the answer combines.
    public var photoCount: Int?
    /// How many of those photos, identified alone, had the combined answer's best species first.
    public var agreeingPhotos: Int?
    /// Milliseconds by stage, keyed by ``IdentificationStage`` raw values, e.g. `decode`, `inference`, `request`.
    public var timings: [String: Double]
    /// When the identification was made.
    public var date: Date
    /// The owner's plants this photo most likely shows (on-device answers with a collection to match against).
    public var collectionMatches: [CollectionMatch]?

    /// Creates an identification.
    public init(
        source: IdentificationSource, model: String? = nil, predictions: [SpeciesPrediction],
        uncertain: Bool, timings: [String: Double] = [:], date: Date = Date(), uncertainReason: String? = nil,
        photoCount: Int? = nil, agreeingPhotos: Int? = nil
    ) {
        self.uncertainReason = uncertainReason
        self.photoCount = photoCount
        self.agreeingPhotos = agreeingPhotos
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
    /// The same identification with each photo's embedding, from the same forward passes; `nil` when the
    /// implementation makes no embeddings.
    public var identifyWithEmbeddings: (@Sendable (_ photos: [Data], _ top: Int) async throws -> EmbeddedIdentification)?

    /// Creates an identifier from its implementation.
    public init(identify: @escaping @Sendable (_ photos: [Data], _ top: Int) async throws -> Identification) {
        self.identify = identify
        identifyWithEmbeddings = nil
    }

    /// Creates an identifier that also makes embeddings; ``identify`` returns the same answer without them.
    public init(identifyWithEmbeddings: @escaping @Sendable (_ photos: [Data], _ top: Int) async throws -> EmbeddedIdentification) {
        self.identifyWithEmbeddings = identifyWithEmbeddings
        identify = { photos, top in try await identifyWithEmbeddings(photos, top).identification }
    }
}
