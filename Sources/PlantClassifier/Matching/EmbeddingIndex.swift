import CPlantKernels
import Dispatch
import Foundation
import PlantGuideCore
import Synchronization

/// Stored embeddings packed into one row-major matrix and searched by cosine similarity, brute force: exact, and
/// below some 100,000 vectors faster than building an approximate index.
///
/// A search reads every stored number, so it is bound by memory bandwidth: 10,000 ResNet50 embeddings are 80 MB
/// as float32. Large indexes therefore also keep an int8 copy (a quarter of that, one scale per vector) that is
/// scanned on every core to shortlist candidates, which are then scored again exactly in float32; small ones use
/// one BLAS matrix-vector product.
public struct EmbeddingIndex: Sendable {
    /// Numbers per vector.
    public let dimension: Int
    /// How many vectors.
    public let count: Int
    private let matrix: [Float]
    /// The int8 copy (row-major) and each row's scale (value ≈ int8 × scale); empty for small indexes.
    private let quantized: [Int8]
    private let scales: [Float]

    /// Below this many stored numbers (count × dimension) the index is searched with BLAS alone.
    public static let quantizeFrom = 1 << 21

    /// Packs `vectors` (all of length `dimension`, each already of length 1); vectors of another length are refused.
    public init(vectors: [[Float]], dimension: Int) throws(ClassifierError) {
        try self.init(vectors: vectors, dimension: dimension, quantizeFrom: Self.quantizeFrom)
    }

    /// Packs with an explicit size from which the int8 shortlist is kept (tests use both paths on small data).
    init(vectors: [[Float]], dimension: Int, quantizeFrom: Int) throws(ClassifierError) {
        var matrix: [Float] = []
        matrix.reserveCapacity(vectors.count * dimension)
        for vector in vectors {
            guard vector.count == dimension else { throw .badInput(expected: dimension, found: vector.count) }
            matrix.append(contentsOf: vector)
        }
        self.dimension = dimension
        count = vectors.count
        self.matrix = matrix
        if count * dimension >= quantizeFrom, dimension > 0 {
            var quantized = [Int8](repeating: 0, count: count * dimension)
            var scales = [Float](repeating: 0, count: count)
            for row in 0..<count { scales[row] = Self.quantize(matrix[(row * dimension)..<((row + 1) * dimension)], into: &quantized, at: row * dimension) }
            self.quantized = quantized
            self.scales = scales
        } else {
            quantized = []
            scales = []
        }
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
    /// Similarities are exact float32 whichever path found them.
    public func nearest(to query: [Float], k: Int) throws(ClassifierError) -> [(index: Int, similarity: Float)] {
        guard query.count == dimension else { throw .badInput(expected: dimension, found: query.count) }
        let wanted = min(max(k, 0), count)
        guard wanted > 0 else { return [] }
        guard !quantized.isEmpty else { return Self.best(wanted, of: try similarities(to: query).enumerated().map { ($0, $1) }) }
        // Shortlist generously on the int8 copy (its error is about 1 % of a similarity), then score exactly.
        let approximate = approximateSimilarities(to: query)
        let shortlist = Self.best(min(count, max(4 * wanted, 64)), of: approximate.enumerated().map { ($0, $1) })
        let exact = shortlist.map { candidate in
            let row = candidate.index * dimension
            var sum: Float = 0
            for column in 0..<dimension { sum += matrix[row + column] * query[column] }
            return (candidate.index, sum)
        }
        return Self.best(wanted, of: exact)
    }

    /// Similarities from the int8 copy, the rows split over every core.
    private func approximateSimilarities(to query: [Float]) -> [Float] {
        var queryInt8 = [Int8](repeating: 0, count: dimension)
        let queryScale = Self.quantize(query[...], into: &queryInt8, at: 0)
        var dots = [Int32](repeating: 0, count: count)
        let pieces = max(1, min(ProcessInfo.processInfo.activeProcessorCount * 2, count / 256))
        let (rows, dimension) = (count, self.dimension)
        quantized.withUnsafeBufferPointer { matrix in
            queryInt8.withUnsafeBufferPointer { queryPointer in
                dots.withUnsafeMutableBufferPointer { output in
                    guard let matrix = matrix.baseAddress, let queryPointer = queryPointer.baseAddress, let output = output.baseAddress
                    else { return }
                    let work = ShortlistOperands(matrix: matrix, query: queryPointer, output: output)
                    DispatchQueue.concurrentPerform(iterations: pieces) { piece in
                        let start = rows * piece / pieces, end = rows * (piece + 1) / pieces
                        guard end > start else { return }
                        pg_int8_dot_rows(work.matrix + start * dimension, end - start, dimension, work.query, work.output + start)
                    }
                }
            }
        }
        return dots.indices.map { Float(dots[$0]) * scales[$0] * queryScale }
    }

    /// Writes `values` as int8 (symmetric, largest magnitude → 127) at `offset`; returns the scale.
    private static func quantize(_ values: ArraySlice<Float>, into output: inout [Int8], at offset: Int) -> Float {
        let largest = values.reduce(Float(0)) { max($0, abs($1)) }
        guard largest > 0 else { return 0 }
        let factor = 127 / largest
        for (position, value) in values.enumerated() { output[offset + position] = Int8((value * factor).rounded()) }
        return largest / 127
    }

    /// The `count` highest scores, highest first (ties by position). A small sorted buffer beats sorting every score
    /// when `count` is small, as it is here.
    private static func best(_ count: Int, of scores: [(Int, Float)]) -> [(index: Int, similarity: Float)] {
        var best: [(index: Int, similarity: Float)] = []
        best.reserveCapacity(count + 1)
        for (index, score) in scores {
            if best.count == count, let last = best.last, score <= last.similarity { continue }
            let position = best.firstIndex { score > $0.similarity || (score == $0.similarity && index < $0.index) } ?? best.count
            best.insert((index, score), at: position)
            if best.count > count { best.removeLast() }
        }
        return best
    }
}

/// The int8 shortlist's buffers, carried into the pieces; each piece writes its own rows of `output`.
private struct ShortlistOperands: @unchecked Sendable {
    let matrix: UnsafePointer<Int8>
    let query: UnsafePointer<Int8>
    let output: UnsafeMutablePointer<Int32>
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
            guard let query = meanDirection(embeddings) else { return CollectionRecognition() }
            let packed = try Packed(try exemplars(model), dimension: query.count)
            return try packed.recognise(query, settings: settings)
        }
    }

    /// The same, keeping the packed index between calls (a server's): it is read and packed again only when
    /// `version` (a cheap summary of the stored embeddings, plants and confirmations) changes.
    public static func live(
        settings: RecognitionSettings, version: @escaping @Sendable (EmbeddingModel) throws -> String,
        exemplars: @escaping @Sendable (EmbeddingModel) throws -> [CollectionExemplar]
    ) -> CollectionRecognizer {
        let cache = Mutex<(key: String, packed: Packed)?>(nil)
        return CollectionRecognizer { embeddings, model in
            guard let query = meanDirection(embeddings) else { return CollectionRecognition() }
            let key = "\(model.name)|\(model.checksum ?? "")|\(query.count)|\(try version(model))"
            let packed = try cache.withLock { cached throws -> Packed in
                if let cached, cached.key == key { return cached.packed }
                let packed = try Packed(try exemplars(model), dimension: query.count)
                cached = (key, packed)
                return packed
            }
            return try packed.recognise(query, settings: settings)
        }
    }

    /// Stored photos of one vector length with their index.
    private struct Packed: Sendable {
        let exemplars: [CollectionExemplar]
        let index: EmbeddingIndex

        init(_ stored: [CollectionExemplar], dimension: Int) throws {
            exemplars = stored.filter { $0.vector.count == dimension }
            index = try EmbeddingIndex(vectors: exemplars.map(\.vector), dimension: dimension)
        }

        func recognise(_ query: [Float], settings: RecognitionSettings) throws -> CollectionRecognition {
            guard !exemplars.isEmpty else { return CollectionRecognition() }
            let nearest = try index.nearest(to: query, k: settings.neighbours)
            return recognition(nearest.map { (exemplars[$0.index], Double($0.similarity)) }, settings: settings)
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
