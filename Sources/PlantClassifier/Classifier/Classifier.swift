import CPlantDNNL
import Foundation
import PlantGuideCore
import Synchronization

/// One candidate species from the on-device model, after merging classes that name the same binomial.
public struct ClassPrediction: Sendable, Hashable {
    /// The class with the highest probability among those merged.
    public var classIndex: Int
    /// Genus and epithet, e.g. `Lactuca virosa`.
    public var scientificName: String
    public var authorship: String?
    /// Sum of the merged classes' probabilities, 0…1.
    public var probability: Double
}

/// A loaded model ready to classify: load once, call from any thread. Forward passes are serialised
/// (each already uses every configured core) and reuse one scratch workspace.
public final class Classifier: Sendable {
    /// The model file's header.
    public let manifest: ModelManifest
    /// Names of the output classes.
    public let labels: LabelSet
    /// Threads used for BLAS and the loops around it.
    public let threads: Int
    /// Whether a forward pass runs on one thread when the machine has no idle core for the others (see
    /// ``threadsForPass()``); the benchmark turns it off to measure the difference.
    @_spi(Benchmark) public var adaptsThreads: Bool {
        get { adapts.load(ordering: .relaxed) }
        set { adapts.store(newValue, ordering: .relaxed) }
    }
    private let adapts = Atomic<Bool>(true)
    /// What runs the convolutions (oneDNN may have been asked for but be unavailable).
    public var backend: ConvolutionBackend { engine.convolutions == nil ? .blas : .oneDNN }
    private let engine: ResNetEngine
    private let groups: [[Int]]
    private let workspace = Mutex<Workspace?>(nil)

    /// Loads the model file at `url`.
    /// - Parameter threads: cores to use, like Core ML's compute units; defaults to all. Each product
    ///   is split over them by the engine; BLAS itself is kept single-threaded (process-wide).
    /// - Parameter backend: what runs the convolutions; by default oneDNN where it is available.
    public convenience init(
        contentsOf url: URL, threads: Int = ProcessInfo.processInfo.activeProcessorCount, backend: ConvolutionBackend? = nil
    ) throws {
        try self.init(contentsOf: url, threads: threads, widenAtLoadBelowBytes: ModelLoader.widenAtLoadBelowBytes, backend: backend)
    }

    /// Loads with oneDNN's maps laid out as `layout`: the benchmark measures the layouts against each other.
    @_spi(Benchmark) public convenience init(
        contentsOf url: URL, threads: Int, backend: ConvolutionBackend?, layout: DNNLLayout
    ) throws {
        try self.init(
            contentsOf: url, threads: threads, widenAtLoadBelowBytes: ModelLoader.widenAtLoadBelowBytes, backend: backend, layout: layout
        )
    }

    /// Loads with an explicit size below which float16 weights are widened once at load, and how oneDNN lays
    /// out its maps.
    init(
        contentsOf url: URL, threads: Int, widenAtLoadBelowBytes: Int, backend: ConvolutionBackend?,
        layout: DNNLLayout = .preferred
    ) throws {
        let (manifest, engine) = try ModelLoader.load(
            url, widenAtLoadBelowBytes: widenAtLoadBelowBytes, backend: backend, threads: max(1, threads), layout: layout
        )
        self.manifest = manifest
        self.engine = engine
        labels = try LabelSet.named(manifest.labels, classes: manifest.classes)
        groups = labels.groups
        self.threads = max(1, threads)
        // The engine spreads each product over the threads itself (see BLAS.parallelGemm).
        Self.keepBLASOnCallingThreads()
    }

    /// Keeps BLAS on the threads that call it, process-wide, and ends the worker threads OpenBLAS started when it was
    /// loaded, which spin for about 0.1 s: call it first thing in a program that classifies (loading a classifier
    /// does it too).
    public static func keepBLASOnCallingThreads() { BLAS.keepOnCallingThread() }

    /// Raw scores for `batch` images given as NCHW float32 (3 channels, `height`×`width` each),
    /// `[batch][classes]` flattened.
    public func logits(_ input: [Float], batch: Int = 1, height: Int, width: Int) throws -> [Float] {
        try outputs(input, batch: batch, height: height, width: width).logits
    }

    /// Raw scores and L2-normalised embeddings for `batch` images (NCHW float32, 3 channels, `height`×`width`),
    /// from one forward pass: `logits` is `[batch][classes]` flattened, `embeddings` holds one vector of
    /// ``embeddingSize`` numbers per image (the pooled features the classifier layer reads, scaled to length 1).
    public func outputs(_ input: [Float], batch: Int = 1, height: Int, width: Int) throws -> (logits: [Float], embeddings: [[Float]]) {
        guard batch > 0, height >= 8, width >= 8, input.count == batch * 3 * height * width else {
            throw ClassifierError.badInput(expected: max(batch, 1) * 3 * height * width, found: input.count)
        }
        let output = try workspace.withLock { cached -> ResNetEngine.Output in
            let current: Workspace
            if let cached, cached.fits(batch: batch, height: height, width: width) {
                current = cached
            } else {
                current = Workspace(
                    spec: engine.spec, batch: batch, height: height, width: width, weightScratch: engine.weightScratch,
                    winograd: engine.winograd, gathersPatches: engine.gathersPatches, channelBlock: engine.channelBlock
                )
                cached = current
            }
            return try input.withUnsafeBufferPointer { pointer in
                guard let base = pointer.baseAddress else { return ResNetEngine.Output(logits: [], features: []) }
                return try engine.forward(
                    base, batch: batch, height: height, width: width, workspace: current, threads: threadsForPass()
                )
            }
        }
        let size = embeddingSize
        let embeddings = (0..<batch).map { image in
            Self.normalised(output.features[(image * size)..<min(output.features.count, (image + 1) * size)])
        }
        return (output.logits, embeddings)
    }

    /// Threads for the next forward pass: ``threads``, or one when threads of other work are ready to run on the
    /// machine and would leave some of ours without a core. Each layer is split evenly between the threads and ends when
    /// the last is done, so a thread that waits for its core holds up every layer: ResNet50 with two threads beside
    /// one busy process took 176–190 ms a pass, with one thread 89 ms (88 ms on an idle machine), on a 2-core machine.
    @_spi(Benchmark) public func threadsForPass() -> Int {
        adaptsThreads ? Self.threadsForPass(threads) : threads
    }

    /// `threads`, or one when the threads of other work ready to run leave fewer idle cores than that (or than the cores
    /// there are, for more threads than cores). `threads` where that cannot be known (see `pg_idle_cores`).
    static func threadsForPass(_ threads: Int) -> Int {
        guard threads > 1 else { return threads }
        let idle = Int(pg_idle_cores(Int32(threads)))
        return idle < 0 || idle >= min(threads, ProcessInfo.processInfo.activeProcessorCount) ? threads : 1
    }

    /// Each convolution with what runs it and, where our own kernel and oneDNN's were timed against each other on this
    /// CPU, what each took (`plantguide model info NAME --plan`). Every layer says `BLAS` where oneDNN is not used.
    public var plan: [PlannedLayer] {
        engine.spec.convPlacements(inputSize: manifest.input.size).map { conv, placement in
            PlannedLayer(
                name: conv.name, inChannels: conv.inChannels, outChannels: conv.outChannels, kernel: conv.kernel, stride: conv.stride,
                mapSide: placement.height, kernelName: engine.convolutions?.kernels[conv.name] ?? "BLAS",
                milliseconds: engine.convolutions?.timings[conv.name] ?? [:]
            )
        }
    }

    /// Numbers in one embedding: the pooled features before the classifier layer (512 for ResNet18, 2,048 for
    /// ResNet50).
    public var embeddingSize: Int { engine.spec.features }

    /// The model that makes this classifier's embeddings: its name and the SHA-256 of the checkpoint it came from.
    /// Embeddings of different models cannot be compared.
    public var embeddingModel: EmbeddingModel {
        EmbeddingModel(name: manifest.displayName, checksum: manifest.sourceSHA256.isEmpty ? nil : manifest.sourceSHA256)
    }

    /// `vector` scaled to length 1 (all zeros stay zeros).
    static func normalised(_ vector: ArraySlice<Float>) -> [Float] {
        var squares = 0.0
        for value in vector { squares += Double(value) * Double(value) }
        guard squares > 0 else { return Array(vector) }
        let scale = Float(1 / squares.squareRoot())
        return vector.map { $0 * scale }
    }

    /// Class probabilities (softmax) for one image in CHW order at the model's input size.
    public func probabilities(_ input: [Float]) throws -> [Float] {
        try probabilitiesAndEmbedding(input).probabilities
    }

    /// Class probabilities (softmax) and the L2-normalised embedding for one image in CHW order at the model's
    /// input size, from one forward pass.
    public func probabilitiesAndEmbedding(_ input: [Float]) throws -> (probabilities: [Float], embedding: [Float]) {
        let size = manifest.input.size
        let output = try outputs(input, height: size, width: size)
        return (Self.softmax(output.logits), output.embeddings.first ?? [])
    }

    /// The `top` most likely species, classes with the same binomial merged.
    public func predictions(from probabilities: [Float], top: Int) -> [ClassPrediction] {
        var merged: [ClassPrediction] = []
        merged.reserveCapacity(groups.count)
        for group in groups {
            var total = 0.0
            var best = group[0]
            for index in group where index < probabilities.count {
                total += Double(probabilities[index])
                if probabilities[index] > probabilities[best] { best = index }
            }
            let label = labels.labels[best]
            merged.append(ClassPrediction(classIndex: best, scientificName: label.binomial, authorship: label.authorship, probability: total))
        }
        merged.sort { $0.probability != $1.probability ? $0.probability > $1.probability : $0.classIndex < $1.classIndex }
        return Array(merged.prefix(max(0, top)))
    }

    /// Numerically stable softmax.
    public static func softmax(_ logits: [Float]) -> [Float] {
        guard let largest = logits.max() else { return [] }
        let exponentials = logits.map { Foundation.exp(Double($0 - largest)) }
        let sum = exponentials.reduce(0, +)
        return exponentials.map { Float($0 / sum) }
    }
}
