import Foundation

/// The model that made an embedding. Embeddings of different models (or of the same architecture imported from
/// different checkpoints) live in different spaces and are never compared.
public struct EmbeddingModel: Sendable, Codable, Hashable {
    /// The model's display name, e.g. `resnet50-plantnet300k`.
    public var name: String
    /// The SHA-256 of the checkpoint the weights came from, when known.
    public var checksum: String?

    /// Names a model.
    public init(name: String, checksum: String? = nil) {
        self.name = name
        self.checksum = checksum
    }
}

/// An identification together with one L2-normalised embedding per photo, from the same forward passes.
public struct EmbeddedIdentification: Sendable {
    /// The identification, as ``OnDeviceIdentifier/identify`` returns it.
    public var identification: Identification
    /// One vector of length 1 per photo, in the order of the photos.
    public var embeddings: [[Float]]
    /// The model that made them.
    public var model: EmbeddingModel

    /// Creates the answer.
    public init(identification: Identification, embeddings: [[Float]], model: EmbeddingModel) {
        self.identification = identification
        self.embeddings = embeddings
        self.model = model
    }
}

/// Computes the embedding of one photo for the collection (a struct of closures, so the store does not know the
/// classifier).
public struct PhotoEmbedder: Sendable {
    /// The model whose embeddings these are.
    public var model: EmbeddingModel
    /// The L2-normalised embedding of one photo (raw file bytes).
    public var embed: @Sendable (_ photo: Data) throws -> [Float]

    /// Creates an embedder from its implementation.
    public init(model: EmbeddingModel, embed: @escaping @Sendable (_ photo: Data) throws -> [Float]) {
        self.model = model
        self.embed = embed
    }
}

/// Where a candidate species came from, when not from the identifier itself.
public enum CandidateSource: String, Sendable, Codable, Hashable {
    /// From photos of your own plants whose species you confirmed; its confidence is the cosine similarity of the
    /// photo to the closest of them.
    case collection
}

/// A plant of the collection that a photo most likely shows.
public struct CollectionMatch: Sendable, Codable, Hashable {
    /// The plant's id in the collection.
    public var plantId: Int64
    /// The plant's name.
    public var name: String
    /// The owner's name for it, if any.
    public var nickname: String?
    /// Its room, if any.
    public var room: String?
    /// Its species (the confirmed one when there is one), if known.
    public var scientificName: String?
    /// Cosine similarity (−1…1, in practice 0…1) to the plant's closest photo.
    public var similarity: Double
    /// The SHA-256 of that photo.
    public var photoSHA256: String

    /// Creates a match.
    public init(
        plantId: Int64, name: String, nickname: String?, room: String?, scientificName: String?, similarity: Double,
        photoSHA256: String
    ) {
        self.plantId = plantId
        self.name = name
        self.nickname = nickname
        self.room = room
        self.scientificName = scientificName
        self.similarity = similarity
        self.photoSHA256 = photoSHA256
    }
}

/// One stored photo embedding of the collection with the plant it belongs to, as matching reads it.
public struct CollectionExemplar: Sendable, Hashable {
    public var plantId: Int64
    public var name: String
    public var nickname: String?
    public var room: String?
    /// The plant's catalog species, if any.
    public var species: String?
    /// The species the owner confirmed (named the plant, or accepted an identification); only such photos name
    /// species.
    public var confirmedSpecies: String?
    public var photoSHA256: String
    /// Length 1.
    public var vector: [Float]

    /// Creates an exemplar.
    public init(
        plantId: Int64, name: String, nickname: String?, room: String?, species: String?, confirmedSpecies: String?,
        photoSHA256: String, vector: [Float]
    ) {
        self.plantId = plantId
        self.name = name
        self.nickname = nickname
        self.room = room
        self.species = species
        self.confirmedSpecies = confirmedSpecies
        self.photoSHA256 = photoSHA256
        self.vector = vector
    }
}

/// How photos are matched against the collection. The defaults suit the PlantNet-300K weights as a starting point
/// only: calibrate them on your own photos with `scripts/calibrate-similarity` (see docs/collection-recognition.md).
public struct RecognitionSettings: Sendable, Hashable, Codable {
    /// A plant is reported as a match from this cosine similarity on (`PLANTGUIDE_MATCH_THRESHOLD`, default 0.85).
    public var plantThreshold: Double
    /// A confirmed species is offered as a candidate from this similarity on (`PLANTGUIDE_SPECIES_MATCH_THRESHOLD`,
    /// default 0.8).
    public var speciesThreshold: Double
    /// How many nearest stored photos are looked at (`PLANTGUIDE_MATCH_NEIGHBOURS`, default 10).
    public var neighbours: Int
    /// How many plants are reported at most.
    public var maximumMatches: Int

    /// The environment variables, by setting.
    public static let plantThresholdVariable = "PLANTGUIDE_MATCH_THRESHOLD"
    public static let speciesThresholdVariable = "PLANTGUIDE_SPECIES_MATCH_THRESHOLD"
    public static let neighboursVariable = "PLANTGUIDE_MATCH_NEIGHBOURS"

    /// Creates settings (the documented defaults when nothing is given).
    public init(plantThreshold: Double = 0.85, speciesThreshold: Double = 0.8, neighbours: Int = 10, maximumMatches: Int = 3) {
        self.plantThreshold = plantThreshold
        self.speciesThreshold = speciesThreshold
        self.neighbours = neighbours
        self.maximumMatches = maximumMatches
    }

    /// The settings from the environment, the defaults where a variable is not set.
    /// - Throws: ``RecognitionSettingsError`` naming a variable whose value is not a number in range.
    public init(environment: [String: String]) throws(RecognitionSettingsError) {
        self.init()
        if let value = try Self.number(environment, Self.plantThresholdVariable, in: -1...1) { plantThreshold = value }
        if let value = try Self.number(environment, Self.speciesThresholdVariable, in: -1...1) { speciesThreshold = value }
        if let value = try Self.number(environment, Self.neighboursVariable, in: 1...1000) { neighbours = Int(value) }
    }

    private static func number(
        _ environment: [String: String], _ name: String, in range: ClosedRange<Double>
    ) throws(RecognitionSettingsError) -> Double? {
        guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw RecognitionSettingsError(variable: name, value: text, range: range)
        }
        return value
    }
}

/// A recognition setting in the environment is not a number in its range.
public struct RecognitionSettingsError: Error, Sendable, CustomStringConvertible {
    public var variable: String
    public var value: String
    public var range: ClosedRange<Double>

    public var description: String {
        "\(variable) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(value)'."
    }
}

/// What the collection says about a photo: the plants it most likely shows, and species named by confirmed photos.
public struct CollectionRecognition: Sendable, Hashable {
    /// Plants at or above the plant threshold, most similar first.
    public var matches: [CollectionMatch]
    /// Confirmed species at or above the species threshold, most similar first, marked ``CandidateSource/collection``
    /// (confidence = similarity).
    public var candidates: [SpeciesPrediction]

    /// Creates a recognition.
    public init(matches: [CollectionMatch] = [], candidates: [SpeciesPrediction] = []) {
        self.matches = matches
        self.candidates = candidates
    }
}

/// Recognises photos against the collection's stored embeddings (a struct of closures: the live one reads the store
/// and searches with BLAS).
public struct CollectionRecognizer: Sendable {
    /// Matches the photos' embeddings (made by `model`) against the collection.
    public var recognize: @Sendable (_ embeddings: [[Float]], _ model: EmbeddingModel) throws -> CollectionRecognition

    /// Creates a recognizer from its implementation.
    public init(recognize: @escaping @Sendable (_ embeddings: [[Float]], _ model: EmbeddingModel) throws -> CollectionRecognition) {
        self.recognize = recognize
    }
}

extension Identification {
    /// This identification with the collection's answer: ``collectionMatches`` set, and the confirmed species put
    /// first among the candidates (a model candidate of the same species is dropped for it), ranks renumbered.
    public func merging(_ recognition: CollectionRecognition) -> Identification {
        var merged = self
        merged.collectionMatches = recognition.matches
        guard !recognition.candidates.isEmpty else { return merged }
        let named = Set(recognition.candidates.map { LearnedSpecies.key(for: $0.scientificName) })
        let rest = predictions.filter { !named.contains(LearnedSpecies.key(for: $0.scientificName)) }
        merged.predictions = (recognition.candidates + rest).enumerated().map { index, prediction in
            var ranked = prediction
            ranked.rank = index + 1
            return ranked
        }
        return merged
    }

    /// Whether the best candidate comes from the owner's confirmed photos (it passed the species threshold, so it
    /// counts as a confident answer).
    public var bestIsFromCollection: Bool { best?.source == .collection }
}
