import Foundation
import Testing
@_spi(Benchmark) @testable import PlantClassifier

/// The engine against PyTorch: same checkpoints, same inputs, logits from `torch` itself.
@Suite struct ParityTests {
    static let architectures: [ResNetArchitecture] = [.resnet18, .resnet34, .resnet50]

    /// What runs the convolutions, and for oneDNN how its maps are laid out between layers.
    struct EnginePath: Sendable, CustomTestStringConvertible {
        var backend: ConvolutionBackend
        var layout: DNNLLayout = .preferred

        /// BLAS, and oneDNN with channels last and with maps in blocks of 8 and of 16 (whichever this CPU would choose).
        static let all = [EnginePath(backend: .blas)]
            + (DNNLConvolutions.isAvailable ? [EnginePath(backend: .oneDNN, layout: .channelsLast)] : [])
            + DNNLLayout.allBlocks.map { EnginePath(backend: .oneDNN, layout: .blocked($0)) }

        var testDescription: String { backend == .blas ? "blas" : "\(backend.rawValue), \(layout)" }
    }

    /// How a float16 model runs: widened once at load or per layer (BLAS), or widened into oneDNN's layout.
    struct HalfPath: Sendable, CustomTestStringConvertible {
        var widenBelow: Int
        var engine: EnginePath

        static let all = [.max, 0].map { HalfPath(widenBelow: $0, engine: EnginePath(backend: .blas)) }
            + EnginePath.all.filter { $0.backend != .blas }.map { HalfPath(widenBelow: 0, engine: $0) }

        var testDescription: String { "\(engine.testDescription), widened below \(widenBelow) bytes" }
    }

    @Test(arguments: architectures, EnginePath.all)
    func float32MatchesPyTorchLogits(architecture: ResNetArchitecture, engine: EnginePath) throws {
        let (file, model) = try FixtureModels.importModel(architecture, precision: .float32)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(
            contentsOf: file, threads: 2, widenAtLoadBelowBytes: ModelLoader.widenAtLoadBelowBytes, backend: engine.backend,
            layout: engine.layout
        )
        #expect(classifier.backend == engine.backend)
        #expect(classifier.manifest.classes == model.classes)
        #expect(classifier.manifest.baseWidth == model.width)
        for (input, expected) in zip(try FixtureModels.inputs(), model.logits) {
            let logits = try classifier.logits(input, height: 64, width: 64)
            try #require(logits.count == expected.count)
            let worst = zip(logits, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 1e-4, "largest logit difference \(worst)")
            #expect(topIndices(logits, 10) == topIndices(expected, 10))
        }
    }

    @Test(arguments: architectures, EnginePath.all)
    func batchOfTwoEqualsTwoSingleImages(architecture: ResNetArchitecture, engine: EnginePath) throws {
        let (file, model) = try FixtureModels.importModel(architecture, precision: .float32)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(
            contentsOf: file, threads: 2, widenAtLoadBelowBytes: ModelLoader.widenAtLoadBelowBytes, backend: engine.backend,
            layout: engine.layout
        )
        let inputs = try FixtureModels.inputs()
        let batched = try classifier.logits(inputs[0] + inputs[1], batch: 2, height: 64, width: 64)
        let expected = model.logits[0] + model.logits[1]
        let worst = zip(batched, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(batched.count == expected.count)
        #expect(worst < 1e-4)
    }

    /// Float16 storage, both widened once at load and kept half-size and widened per layer (BLAS), and
    /// widened into oneDNN's layout at load.
    @Test(arguments: architectures, HalfPath.all)
    func float16KeepsTopTenAndProbabilities(architecture: ResNetArchitecture, path: HalfPath) throws {
        let (file, model) = try FixtureModels.importModel(architecture, precision: .float16)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(
            contentsOf: file, threads: 2, widenAtLoadBelowBytes: path.widenBelow, backend: path.engine.backend, layout: path.engine.layout
        )
        #expect(classifier.manifest.precision == .float16)
        for (input, expected) in zip(try FixtureModels.inputs(), model.logits) {
            let probabilities = try classifier.probabilities(input)
            let reference = Classifier.softmax(expected)
            let worst = zip(probabilities, reference).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 5e-3, "largest probability difference \(worst)")
            #expect(topIndices(probabilities, 10) == topIndices(reference, 10))
        }
    }

    /// Float16 weights kept half-size in oneDNN's layout survive the primitives being rebuilt for
    /// another batch size: a batch of two gives each image's own logits.
    @Test(arguments: EnginePath.all)
    func float16BatchMatchesSingleImagesAfterRebuild(engine: EnginePath) throws {
        let (file, _) = try FixtureModels.importModel(.resnet50, precision: .float16)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(
            contentsOf: file, threads: 2, widenAtLoadBelowBytes: 0, backend: engine.backend, layout: engine.layout
        )
        #expect(classifier.backend == engine.backend)
        let inputs = try FixtureModels.inputs()
        let single = try inputs.prefix(2).flatMap { try classifier.logits($0, height: 64, width: 64) }
        let batched = try classifier.logits(inputs[0] + inputs[1], batch: 2, height: 64, width: 64)
        let again = try classifier.logits(inputs[0], height: 64, width: 64)
        #expect(batched.count == single.count)
        let worst = zip(batched, single).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 1e-4, "largest logit difference \(worst)")
        #expect(again == Array(single.prefix(again.count)))
    }

    @Test func float16HalvesTheFile() throws {
        let (half, _) = try FixtureModels.importModel(.resnet50, precision: .float16)
        let (full, _) = try FixtureModels.importModel(.resnet50, precision: .float32)
        defer {
            FixtureModels.remove(half)
            FixtureModels.remove(full)
        }
        let halfSize = try #require(try FileManager.default.attributesOfItem(atPath: half.path)[.size] as? Int)
        let fullSize = try #require(try FileManager.default.attributesOfItem(atPath: full.path)[.size] as? Int)
        #expect(Double(halfSize) < Double(fullSize) * 0.6)
    }

    /// Separate models loaded and run at the same time share no convolution state.
    @Test func separateModelsRunConcurrently() async throws {
        let (file, model) = try FixtureModels.importModel(.resnet34, precision: .float32)
        defer { FixtureModels.remove(file) }
        let inputs = try FixtureModels.inputs()
        let results = try await withThrowingTaskGroup(of: [Float].self) { group in
            for round in 0..<4 {
                group.addTask {
                    let classifier = try Classifier(contentsOf: file, threads: 1)
                    var logits: [Float] = []
                    for _ in 0..<3 { logits = try classifier.logits(inputs[round % 2], height: 64, width: 64) }
                    return logits + [Float(round % 2)]
                }
            }
            return try await group.reduce(into: [[Float]]()) { $0.append($1) }
        }
        #expect(results.count == 4)
        for result in results {
            let index = Int(result[result.count - 1])
            let worst = zip(result.dropLast(), model.logits[index]).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 1e-4, "largest logit difference \(worst)")
        }
    }

    @Test func concurrentCallersGetTheSameAnswers() async throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float32)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 2)
        let inputs = try FixtureModels.inputs()
        let serial = try inputs.map { try classifier.logits($0, height: 64, width: 64) }
        let results = try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            for round in 0..<8 {
                group.addTask { (round % 2, try classifier.logits(inputs[round % 2], height: 64, width: 64)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        for (index, logits) in results { #expect(logits == serial[index]) }
    }

    @Test func wrongInputSizeIsAnError() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let classifier = try Classifier(contentsOf: file, threads: 1)
        #expect(throws: ClassifierError.badInput(expected: 3 * 64 * 64, found: 10)) {
            try classifier.logits([Float](repeating: 0, count: 10), height: 64, width: 64)
        }
    }
}
