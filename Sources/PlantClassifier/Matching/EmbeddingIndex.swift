import Foundation
import PlantGuideCore

/// Stored embeddings packed into one row-major matrix, searched by cosine similarity with one BLAS matrix-vector
/// product. Brute force is exact and, below some 100,000 vectors, faster than building an approximate index.
public struct EmbeddingIndex: Sendable {
    /// Numbers per vector.
    public let dimension: Int
    /// How many vectors.
    public let count: Int
    private let matrix: [Float]

    /// Packs `vectors` (all of length `dimension`, each already of length 1); vectors of another length are refused.
    public init(vectors: [[Float]], dimension: Int) throws(ClassifierError) {
        var matrix: [Float] = []
        matrix.reserveCapacity(vectors.count * dimension)
        for vector in vectors {
            guard vector.count == dimension else { throw .badInput(expected: dimension, found: vector.count) }
            matrix.append(contentsOf: vector)
        }
        self.dimension = dimension
        count = vectors.count
        self.matrix = matrix
    }

    /// Cosine similarity of `query` (length 1) to every stored vector, in storage order.
    public func similarities(to query: [Float]) throws(ClassifierError) -> [Float] {
        guard query.count == dimension else { throw .badInput(expected: dimension, found: query.count) }
        guard count > 0 else { return [] }
        var result = [Float](repeating: 0, count: count)
        matrix.withUnsafeBufferPointer { a in
            query.withUnsafeBufferPointer { x in
                result.withUnsafeMutableBufferPointer { y in
                    guard let a = a.baseAddress, let x = x.baseAddress, let y = y.baseAddress else { return }
                    BLAS.matrixVector(m: count, n: dimension, a: a, x: x, y: y)
                }
            }
        }
        return result
    }

    /// The `k` stored vectors most similar to `query`: (position, similarity), most similar first (ties by position).
    public func nearest(to query: [Float], k: Int) throws(ClassifierError) -> [(index: Int, similarity: Float)] {
        let scores = try similarities(to: query)
        let wanted = min(max(k, 0), scores.count)
        guard wanted > 0 else { return [] }
        // A small sorted buffer beats sorting every score when k is small (it always is here).
        var best: [(index: Int, similarity: Float)] = []
        best.reserveCapacity(wanted + 1)
        for (index, score) in scores.enumerated() {
            if best.count == wanted, let last = best.last, score <= last.similarity { continue }
            let position = best.firstIndex { score > $0.similarity } ?? best.count
            best.insert((index, score), at: position)
            if best.count > wanted { best.removeLast() }
        }
        return best
    }
}

extension CollectionRecognizer {
    /// Matches against the collection's stored embeddings: the photos' embeddings are averaged into one query, the
    /// `settings.neighbours` nearest stored photos found with ``EmbeddingIndex``, and from them the plants at or above
    /// the plant threshold and the confirmed species at or above the species threshold.
    /// - Parameter exemplars: the stored photos with embeddings of a model (the store's ``exemplars``).
    public static func live(
        settings: RecognitionSettings, exemplars: @escaping @Sendable (EmbeddingModel) throws -> [CollectionExemplar]
    ) -> CollectionRecognizer {
        CollectionRecognizer { embeddings, model in
            let stored = try exemplars(model)
            guard let query = meanDirection(embeddings), !stored.isEmpty else { return CollectionRecognition() }
            let index = try EmbeddingIndex(vectors: stored.filter { $0.vector.count == query.count }.map(\.vector), dimension: query.count)
            let usable = stored.filter { $0.vector.count == query.count }
            let nearest = try index.nearest(to: query, k: settings.neighbours)
            return recognition(nearest.map { (usable[$0.index], Double($0.similarity)) }, settings: settings)
        }
    }

    /// The plants and confirmed species among the nearest stored photos (most similar first).
    static func recognition(_ nearest: [(CollectionExemplar, Double)], settings: RecognitionSettings) -> CollectionRecognition {
        var matches: [CollectionMatch] = []
        var seenPlants: Set<Int64> = []
        var candidates: [SpeciesPrediction] = []
        var seenSpecies: Set<String> = []
        for (exemplar, similarity) in nearest {
            if similarity >= settings.plantThreshold, matches.count < settings.maximumMatches, seenPlants.insert(exemplar.plantId).inserted {
                matches.append(CollectionMatch(
                    plantId: exemplar.plantId, name: exemplar.name, nickname: exemplar.nickname, room: exemplar.room,
                    scientificName: exemplar.confirmedSpecies ?? exemplar.species, similarity: similarity,
                    photoSHA256: exemplar.photoSHA256
                ))
            }
            if similarity >= settings.speciesThreshold, let species = exemplar.confirmedSpecies,
               seenSpecies.insert(LearnedSpecies.key(for: species)).inserted {
                candidates.append(SpeciesPrediction(
                    rank: candidates.count + 1, scientificName: species, confidence: min(1, max(0, similarity)), source: .collection
                ))
            }
        }
        return CollectionRecognition(matches: matches, candidates: candidates)
    }

    /// The normalised mean of unit vectors of one length; `nil` when there are none or they cancel out.
    static func meanDirection(_ vectors: [[Float]]) -> [Float]? {
        guard let first = vectors.first, !first.isEmpty, vectors.allSatisfy({ $0.count == first.count }) else { return nil }
        guard vectors.count > 1 else { return first }
        var sum = [Double](repeating: 0, count: first.count)
        for vector in vectors { for (index, value) in vector.enumerated() { sum[index] += Double(value) } }
        let length = sum.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard length > 0 else { return nil }
        return sum.map { Float($0 / length) }
    }
}
