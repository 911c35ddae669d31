import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import Synchronization
import Testing
@testable import PlantClassifier

/// The embedding the classifier returns with its scores: the pooled features the final layer reads, scaled to
/// length 1, from the same forward pass.
@Suite struct EmbeddingTests {
    /// The scores stay exactly what `logits` gives (the parity tests check those against PyTorch), and the
    /// embedding is, up to its length, the input of the checkpoint's own `fc` layer: logits − bias = ‖f‖ · W·e.
    @Test(arguments: [ResNetArchitecture.resnet18, .resnet50])
    func embeddingIsTheClassifierLayersInput(architecture: ResNetArchitecture) throws {
        let (file, model) = try FixtureModels.importModel(architecture, precision: .float32)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 2)
        let tensors = try TorchCheckpoint(contentsOf: FixtureModels.url(model.file)).floatTensors()
        let weight = try #require(tensors["fc.weight"]), bias = try #require(tensors["fc.bias"])
        let features = weight.shape[1]
        #expect(classifier.embeddingSize == features)
        #expect(features == (architecture == .resnet18 ? 8 : 32) * model.width)
        for input in try FixtureModels.inputs() {
            let output = try classifier.outputs(input, height: 64, width: 64)
            #expect(output.logits == (try classifier.logits(input, height: 64, width: 64)))
            let embedding = try #require(output.embeddings.first)
            #expect(embedding.count == features)
            let length = embedding.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
            #expect(abs(length - 1) < 1e-5)
            // Fit the scale ‖f‖ by least squares, then every class must agree with it.
            let projected = (0..<model.classes).map { row in
                (0..<features).reduce(0.0) { $0 + Double(weight.values[row * features + $1]) * Double(embedding[$1]) }
            }
            let centred = (0..<model.classes).map { Double(output.logits[$0]) - Double(bias.values[$0]) }
            let scale = zip(projected, centred).reduce(0) { $0 + $1.0 * $1.1 } / projected.reduce(0) { $0 + $1 * $1 }
            #expect(scale > 0)
            let worst = zip(projected, centred).map { abs($0 * scale - $1) }.max() ?? .infinity
            #expect(worst < 1e-3, "largest difference \(worst) at scale \(scale)")
        }
    }

    @Test func batchedEmbeddingsEqualSingleOnes() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float32)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 2)
        let inputs = try FixtureModels.inputs()
        let batched = try classifier.outputs(inputs[0] + inputs[1], batch: 2, height: 64, width: 64).embeddings
        try #require(batched.count == 2)
        for (index, input) in inputs.prefix(2).enumerated() {
            let single = try #require(try classifier.outputs(input, height: 64, width: 64).embeddings.first)
            #expect(zip(single, batched[index]).allSatisfy { abs($0 - $1) < 1e-5 })
        }
        // Different images give different directions.
        let similarity = zip(batched[0], batched[1]).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        #expect(similarity < 0.9999)
    }

    /// `identifyWithEmbeddings` answers what `identify` answers, with one embedding per photo, tagged with the model.
    @Test func identificationCarriesOneEmbeddingPerPhoto() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 1)
        let photos = [TextureFixture.plasma(width: 96, height: 80).png, TextureFixture.gradient(width: 96, height: 80).png]
        let date = Date(timeIntervalSince1970: 1_000_000)
        let answer = try classifier.identifyWithEmbeddings(photos: photos, top: 5, threshold: 0.7, now: date)
        var plain = try classifier.identify(photos: photos, top: 5, threshold: 0.7, now: date)
        plain.timings = answer.identification.timings
        #expect(answer.identification == plain)
        #expect(answer.embeddings.count == 2)
        #expect(answer.embeddings.allSatisfy { $0.count == classifier.embeddingSize })
        #expect(answer.model == EmbeddingModel(name: classifier.manifest.displayName, checksum: classifier.manifest.sourceSHA256))
        let single = try classifier.embedding(photo: photos[1])
        #expect(zip(single, answer.embeddings[1]).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    /// The brute-force search returns what sorting every similarity would, best first: through BLAS, and through the
    /// int8 shortlist of large indexes.
    @Test(arguments: [Int.max, 0])
    func nearestMatchesAFullSort(quantizeFrom: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let dimension = 64
        let vectors = (0..<3000).map { _ in Classifier.normalised((0..<dimension).map { _ in Float.random(in: -1...1, using: &generator) }[...]) }
        let index = try EmbeddingIndex(vectors: vectors, dimension: dimension, quantizeFrom: quantizeFrom)
        let query = vectors[123]
        let nearest = try index.nearest(to: query, k: 7)
        let expected = vectors.indices.map { i in (i, zip(vectors[i], query).reduce(Float(0)) { $0 + $1.0 * $1.1 }) }
            .sorted { $0.1 > $1.1 }.prefix(7)
        #expect(nearest.map(\.index) == expected.map(\.0))
        #expect(nearest.first?.index == 123)
        #expect(abs((nearest.first?.similarity ?? 0) - 1) < 1e-5)
        #expect(zip(nearest, expected).allSatisfy { abs($0.similarity - $1.1) < 1e-5 })
        #expect(throws: ClassifierError.self) { try index.nearest(to: [1, 0], k: 1) }
        #expect(try EmbeddingIndex(vectors: [], dimension: dimension, quantizeFrom: quantizeFrom).nearest(to: query, k: 3).isEmpty)
    }

    /// Thresholds decide what is reported; the plant is named once, by its best photo; only confirmed photos name species.
    @Test func recognitionAppliesTheThresholds() throws {
        func exemplar(_ plant: Int64, _ confirmed: String?, _ sha: Character, _ vector: [Float]) -> CollectionExemplar {
            CollectionExemplar(
                plantId: plant, name: "Plant \(plant)", nickname: nil, room: nil, species: nil, confirmedSpecies: confirmed,
                photoSHA256: String(repeating: sha, count: 64), vector: vector
            )
        }
        let stored = [
            exemplar(1, "Dracaena trifasciata", "a", [1, 0, 0]),
            exemplar(1, "Dracaena trifasciata", "b", Classifier.normalised([0.9, 0.1, 0][...])),
            exemplar(2, nil, "c", Classifier.normalised([0.8, 0.6, 0][...])),
            exemplar(3, "Monstera deliciosa", "d", [0, 0, 1]),
        ]
        let query: [Float] = [1, 0, 0]
        func recognise(_ settings: RecognitionSettings) throws -> CollectionRecognition {
            try CollectionRecognizer.live(settings: settings) { _ in stored }.recognize([query], EmbeddingModel(name: "m"))
        }
        let strict = try recognise(RecognitionSettings(plantThreshold: 0.95, speciesThreshold: 0.95))
        #expect(strict.matches.map(\.plantId) == [1])
        #expect(strict.matches.first?.photoSHA256.first == "a")
        #expect(strict.candidates.map(\.scientificName) == ["Dracaena trifasciata"])
        #expect(strict.candidates.first?.source == .collection)
        let loose = try recognise(RecognitionSettings(plantThreshold: 0.5, speciesThreshold: 0.5))
        #expect(loose.matches.map(\.plantId) == [1, 2])
        #expect(loose.candidates.count == 1)
        let none = try recognise(RecognitionSettings(plantThreshold: 1.01, speciesThreshold: 1.01))
        #expect(none.matches.isEmpty && none.candidates.isEmpty)
    }

    /// The server's recognizer keeps its packed index until the store's version changes.
    @Test func theCachedRecognizerReloadsOnlyWhenTheVersionChanges() throws {
        let state = Mutex((version: "1", loads: 0, species: "Dracaena trifasciata"))
        let recognizer = CollectionRecognizer.live(
            settings: RecognitionSettings(plantThreshold: 0.5, speciesThreshold: 0.5), version: { _ in state.withLock { $0.version } },
            exemplars: { _ in
                state.withLock { current in
                    current.loads += 1
                    return [CollectionExemplar(
                        plantId: 1, name: "Spike", nickname: nil, room: nil, species: nil, confirmedSpecies: current.species,
                        photoSHA256: String(repeating: "a", count: 64), vector: [1, 0]
                    )]
                }
            }
        )
        let model = EmbeddingModel(name: "m")
        #expect(try recognizer.recognize([[1, 0]], model).candidates.first?.scientificName == "Dracaena trifasciata")
        state.withLock { $0.species = "Monstera deliciosa" }
        #expect(try recognizer.recognize([[0.8, 0.6]], model).candidates.first?.scientificName == "Dracaena trifasciata")
        #expect(state.withLock { $0.loads } == 1)
        state.withLock { $0.version = "2" }
        #expect(try recognizer.recognize([[1, 0]], model).candidates.first?.scientificName == "Monstera deliciosa")
        #expect(state.withLock { $0.loads } == 2)
        #expect(try recognizer.recognize([[1, 0]], EmbeddingModel(name: "other")).matches.count == 1)
        #expect(state.withLock { $0.loads } == 3)
    }
}
