import Foundation

/// How images must be prepared for a model: resize the short side, centre-crop a square, normalise.
public struct ModelInputSettings: Sendable, Codable, Hashable {
    /// Side of the square the network sees, e.g. 224.
    public var size: Int
    /// Length the short side is resized to before cropping, e.g. 256.
    public var resize: Int
    /// Per-channel mean (RGB) subtracted after scaling pixels to 0…1.
    public var mean: [Float]
    /// Per-channel standard deviation (RGB) divided by.
    public var std: [Float]

    /// ImageNet statistics with a 256 → 224 centre crop, as PlantNet-300K's models were trained.
    public static let imageNet = ModelInputSettings(
        size: 224, resize: 256, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]
    )

    public init(size: Int, resize: Int, mean: [Float], std: [Float]) {
        self.size = size
        self.resize = resize
        self.mean = mean
        self.std = std
    }
}

/// How weights are stored in a model file. Computation is always float32.
public enum WeightPrecision: String, Sendable, Codable, CaseIterable {
    case float16, float32

    var bytesPerValue: Int { self == .float16 ? 2 : 4 }
}

/// The header of a PlantGuide model file: what the network is and where each tensor lies.
public struct ModelManifest: Sendable, Codable, Hashable {
    /// One stored tensor.
    public struct Tensor: Sendable, Codable, Hashable {
        public var name: String
        public var shape: [Int]
        /// Byte offset from the start of the data section.
        public var offset: Int
        /// XXH64 of the stored bytes (16 hex digits), checked as the tensor is loaded; `nil` in files
        /// written before PlantGuide recorded it (such files load unchecked).
        public var xxh64: String?

        public var count: Int { shape.reduce(1, *) }
    }

    public var architecture: ResNetArchitecture
    /// Channels after the stem (64 for torchvision's ResNets).
    public var baseWidth: Int
    public var classes: Int
    public var input: ModelInputSettings
    /// Label set the classes map to (`plantnet300k`) or `index` for "class N".
    public var labels: String
    public var precision: WeightPrecision
    /// SHA-256 of the checkpoint the weights were imported from.
    public var sourceSHA256: String
    /// File name of that checkpoint.
    public var sourceName: String
    /// Where the checkpoint was imported or downloaded from: its absolute path or URL; `nil` (unknown) in files
    /// written before PlantGuide recorded it.
    public var source: String?
    /// When the model file was written; `nil` (unknown) in older files.
    public var importedAt: Date?
    /// Tensors in file order.
    public var tensors: [Tensor]

    /// A short model name for results, e.g. `resnet50-plantnet300k`.
    public var displayName: String { "\(architecture.rawValue)-\(labels)" }

    /// Whether the file records checksums of its weights (files written before PlantGuide did load unchecked).
    public var hasChecksums: Bool { !tensors.isEmpty && tensors.allSatisfy { $0.xxh64 != nil } }
}
