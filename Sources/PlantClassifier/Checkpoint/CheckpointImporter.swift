import PlantGuideCore
import Foundation

/// Turns a PyTorch ResNet checkpoint into PlantGuide's model file: checks every tensor against the
/// architecture, folds batch-norm into the convolutions, packs weights channels-last, and records
/// where the weights came from.
public struct CheckpointImporter: Sendable {
    /// What to import and how to store it.
    public struct Options: Sendable {
        public var architecture: ResNetArchitecture
        /// Label set name (see ``LabelSet/knownNames``).
        public var labels: String
        public var precision: WeightPrecision
        public var input: ModelInputSettings
        /// Where the checkpoint came from, recorded in the model file: the URL it was downloaded from; `nil`
        /// records the checkpoint's own absolute path.
        public var source: String?

        public init(
            architecture: ResNetArchitecture, labels: String = "plantnet300k", precision: WeightPrecision = .float16,
            input: ModelInputSettings = .imageNet, source: String? = nil
        ) {
            self.architecture = architecture
            self.labels = labels
            self.precision = precision
            self.input = input
            self.source = source
        }
    }

    /// torchvision's BatchNorm2d default.
    static let epsilon = 1e-5

    public init() {}

    /// Imports `checkpoint` into a model file at `output` and returns its manifest.
    /// - Parameter now: recorded as the time of import.
    @discardableResult
    public func importCheckpoint(at checkpoint: URL, options: Options, to output: URL, now: Date = Date()) throws -> ModelManifest {
        let data: Data
        do {
            data = try Data(contentsOf: checkpoint, options: .alwaysMapped)
        } catch {
            throw ClassifierError.unreadableFile(path: checkpoint.path, reason: (error as NSError).localizedDescription)
        }
        let source = try TorchCheckpoint(data: data)
        let tensors = try source.floatTensors()
        var (manifest, packed) = try pack(tensors, options: options, sha256: sha256Hex(data), sourceName: checkpoint.lastPathComponent)
        manifest.source = options.source ?? checkpoint.standardizedFileURL.path
        manifest.importedAt = now
        try ModelFile.write(manifest: manifest, tensors: packed, to: output)
        return try ModelFile.manifest(at: output)
    }

    /// Checks, folds and packs a state dict (canonical names → shape and values).
    func pack(
        _ tensors: [String: (shape: [Int], values: [Float])], options: Options, sha256: String, sourceName: String
    ) throws -> (ModelManifest, [String: [Float]]) {
        guard let fc = tensors["fc.weight"], fc.shape.count == 2 else { throw ClassifierError.missingTensor("fc.weight") }
        guard let stem = tensors["conv1.weight"], stem.shape.count == 4 else { throw ClassifierError.missingTensor("conv1.weight") }
        let classes = fc.shape[0]
        let spec = NetworkSpec(architecture: options.architecture, baseWidth: stem.shape[0], classes: classes)
        _ = try LabelSet.named(options.labels, classes: classes)

        func tensor(_ name: String, _ shape: [Int]) throws -> [Float] {
            guard let found = tensors[name] else { throw ClassifierError.missingTensor(name) }
            guard found.shape == shape else { throw ClassifierError.shapeMismatch(name: name, expected: shape, found: found.shape) }
            return found.values
        }

        var packed: [String: [Float]] = [:]
        let winograd = spec.winogradConvs(inputSize: options.input.size)
        for conv in spec.allConvs {
            let k = conv.kernel, cin = conv.inChannels, cout = conv.outChannels
            let weight = try tensor("\(conv.convName).weight", [cout, cin, k, k])
            let gamma = try tensor("\(conv.normName).weight", [cout])
            let beta = try tensor("\(conv.normName).bias", [cout])
            let mean = try tensor("\(conv.normName).running_mean", [cout])
            let variance = try tensor("\(conv.normName).running_var", [cout])
            var folded = [Float](repeating: 0, count: conv.reduction * cout)
            var bias = [Float](repeating: 0, count: cout)
            for o in 0..<cout {
                let scale = Double(gamma[o]) / (Double(variance[o]) + Self.epsilon).squareRoot()
                bias[o] = Float(Double(beta[o]) - Double(mean[o]) * scale)
                for i in 0..<cin {
                    for y in 0..<k {
                        for x in 0..<k {
                            let source = ((o * cin + i) * k + y) * k + x
                            folded[((y * k + x) * cin + i) * cout + o] = Float(Double(weight[source]) * scale)
                        }
                    }
                }
            }
            if winograd.contains(conv.name) {
                packed["\(conv.name).winograd"] = Winograd.transformWeights(folded, inChannels: cin, outChannels: cout)
            } else {
                packed["\(conv.name).weight"] = folded
            }
            packed["\(conv.name).bias"] = bias
        }
        let fcWeight = try tensor("fc.weight", [classes, spec.features])
        var transposed = [Float](repeating: 0, count: fcWeight.count)
        for c in 0..<classes {
            for f in 0..<spec.features { transposed[f * classes + c] = fcWeight[c * spec.features + f] }
        }
        packed["fc.weight"] = transposed
        packed["fc.bias"] = try tensor("fc.bias", [classes])

        let manifest = ModelManifest(
            architecture: options.architecture, baseWidth: spec.baseWidth, classes: classes, input: options.input,
            labels: options.labels, precision: options.precision, sourceSHA256: sha256, sourceName: sourceName,
            tensors: spec.packedTensors(inputSize: options.input.size).map { ModelManifest.Tensor(name: $0.name, shape: $0.shape, offset: 0) }
        )
        return (manifest, packed)
    }
}
