import Foundation

/// What runs one convolution of the classifier.
public enum LayerEngine: String, Codable, Sendable {
    /// oneDNN's kernels, which pick their AVX2 or AVX-512 code for the CPU themselves.
    case oneDNN = "onednn"
    /// PlantGuide's own kernel for the layer's shape with AVX2: Winograd for 3×3 stride-1 layers, pointwise for 1×1
    /// stride-1 layers with float16 weights.
    case own
    /// PlantGuide's Winograd kernel with its products on AVX-512 registers (CPUs with AVX-512F).
    case ownAVX512 = "own-avx512"
}

/// One layer's engine and, when it was timed, the milliseconds a run of each candidate took (the least of the timed
/// runs), keyed by ``LayerEngine`` raw value. Layers that no own kernel can run go to oneDNN untimed.
public struct LayerChoice: Codable, Sendable, Equatable {
    public var engine: LayerEngine
    public var milliseconds: [String: Double] = [:]
}

/// One convolution of a loaded classifier, what runs it and why: `plantguide model info NAME --plan`.
public struct PlannedLayer: Sendable, Codable, Equatable {
    /// The layer's name in the checkpoint, e.g. `layer3.2.conv2`.
    public var name: String
    public var inChannels: Int
    public var outChannels: Int
    public var kernel: Int
    public var stride: Int
    /// Rows (and columns) of the map it reads for the model's input size.
    public var mapSide: Int
    /// What runs it: `oneDNN`, `Winograd F(4×4, 3×3)` or `Winograd F(2×2, 3×3)` (either with ` AVX-512` after it), or
    /// `pointwise`.
    public var kernelName: String
    /// Milliseconds per run of each candidate timed for this CPU (`own`, `own-avx512`, `onednn`); empty when only one
    /// applies, or when the layout was not timed.
    public var milliseconds: [String: Double]
}

/// The engines chosen by timing for one model file on one CPU, kept beside the file (`<file>.plan.json`) so that later
/// loads skip the timing. It holds for the CPU model and vector extensions, thread count and channel block it was
/// measured with, and for the file as it was (size, modification time, checkpoint checksum, precision); anything else
/// is measured again and the file replaced. A plan that cannot be read or written costs only the timing.
struct LayerPlan: Codable, Equatable {
    var version = 1
    /// The CPU's model name and vector extensions (``CPUInfo/signature``).
    var cpu: String
    var threads: Int
    var channelBlock: Int
    /// The model file as it was measured (see ``modelSignature(of:manifest:)``).
    var model: String
    var layers: [String: LayerChoice]

    /// Where the plan of the model file at `model` lives.
    static func url(for model: URL) -> URL { model.deletingLastPathComponent().appendingPathComponent(model.lastPathComponent + ".plan.json") }

    /// The model file as it is now: size, modification time, the checkpoint's checksum and the precision.
    static func modelSignature(of url: URL, manifest: ModelManifest) -> String {
        let values = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
        let modified = values?.contentModificationDate?.timeIntervalSince1970 ?? 0
        return "\(values?.fileSize ?? 0) bytes, modified \(modified), \(manifest.sourceSHA256), \(manifest.precision.rawValue)"
    }

    /// The plan beside `model` when it was measured for the same CPU, threads, block and file, else nil.
    static func remembered(for model: URL, matching wanted: LayerPlan) -> LayerPlan? {
        guard let data = try? Data(contentsOf: url(for: model), options: .uncached), data.count < 1 << 20,
            let plan = try? JSONDecoder().decode(LayerPlan.self, from: data),
            plan.version == wanted.version, plan.cpu == wanted.cpu, plan.threads == wanted.threads,
            plan.channelBlock == wanted.channelBlock, plan.model == wanted.model
        else { return nil }
        return plan
    }

    /// Writes the plan beside `model` (atomically, so a reader never sees half of it); false when the folder is not
    /// writable.
    @discardableResult
    func save(beside model: URL) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return false }
        return (try? data.write(to: Self.url(for: model), options: .atomic)) != nil
    }
}
