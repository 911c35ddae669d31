import Foundation

/// A PyTorch checkpoint written by `torch.save` (zip format, PyTorch ≥ 1.6), read without Python.
public struct TorchCheckpoint {
    /// One tensor of the state dict, as stored.
    public struct TensorInfo: Sendable, Hashable, Codable {
        /// Key in the state dict, exactly as stored (including any `module.` prefix).
        public var name: String
        /// Element type, e.g. `float32`.
        public var dtype: TensorDType
        /// Dimensions, outermost first.
        public var shape: [Int]
    }

    private let archive: ZipArchive
    private let prefix: String
    private let references: [(name: String, tensor: TensorReference)]
    /// Keys of the wrapper dict when the state dict was nested (`epoch`, `model`, `optimizer`), else empty.
    public let wrapperKeys: [String]

    /// Reads `url` and parses its pickle. Tensor data is read later, on demand.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw ClassifierError.unreadableFile(path: url.path, reason: (error as NSError).localizedDescription)
        }
        try self.init(data: data)
    }

    /// Parses checkpoint bytes.
    public init(data: Data) throws {
        archive = try ZipArchive(data: data)
        // torch.save names entries `<archive name>/data.pkl`, `<archive name>/data/<storage key>`.
        guard let pickle = archive.entries.first(where: { $0.name.hasSuffix("data.pkl") && $0.name.split(separator: "/").count <= 2 }) else {
            throw ClassifierError.notACheckpoint("the zip archive has no data.pkl")
        }
        prefix = String(pickle.name.dropLast("data.pkl".count))
        if let order = archive.entry(named: prefix + "byteorder"),
            String(decoding: try archive.contents(of: order), as: UTF8.self) != "little"
        {
            throw ClassifierError.notACheckpoint("big-endian checkpoints are not supported")
        }
        let root = try Unpickler.load(try archive.contents(of: pickle))
        let (stateDict, wrapper) = try Self.findStateDict(root)
        wrapperKeys = wrapper
        var references: [(String, TensorReference)] = []
        for entry in stateDict.entries {
            guard case .string(let name) = entry.key else { continue }
            if case .tensor(let tensor) = entry.value { references.append((name, tensor)) }
        }
        self.references = references
    }

    /// The tensors of the state dict, in stored order.
    public var tensors: [TensorInfo] {
        references.map { TensorInfo(name: $0.name, dtype: $0.tensor.storage.dtype, shape: $0.tensor.shape) }
    }

    /// Tensor names with any `module.` prefix (left by `nn.DataParallel`) removed.
    static func canonicalName(_ name: String) -> String {
        var name = Substring(name)
        while name.hasPrefix("module.") { name = name.dropFirst("module.".count) }
        return String(name)
    }

    /// Reads tensors by canonical name (no `module.` prefix) as float32 in row-major order.
    func floatTensors() throws -> [String: (shape: [Int], values: [Float])] {
        var storages: [String: Data] = [:]
        var result: [String: (shape: [Int], values: [Float])] = [:]
        for (name, tensor) in references {
            let key = tensor.storage.key
            if storages[key] == nil {
                guard let entry = archive.entry(named: "\(prefix)data/\(key)") else {
                    throw ClassifierError.corruptArchive("storage \(key) of tensor \(name) is missing")
                }
                storages[key] = try archive.contents(of: entry)
            }
            guard let storage = storages[key] else { continue }
            result[Self.canonicalName(name)] = (tensor.shape, try Self.floats(of: tensor, in: storage, name: name))
        }
        return result
    }

    private static func floats(of tensor: TensorReference, in storage: Data, name: String) throws -> [Float] {
        let dtype = tensor.storage.dtype
        guard storage.count >= tensor.storage.elementCount * dtype.size else {
            throw ClassifierError.corruptArchive("storage of \(name) is shorter than declared")
        }
        let available = storage.count / dtype.size
        let count = tensor.elementCount
        // The furthest element the view touches must lie inside the storage.
        let furthest = tensor.offset + zip(tensor.shape, tensor.strides).reduce(0) { $0 + max(0, $1.0 - 1) * $1.1 }
        guard count == 0 || furthest < available else {
            throw ClassifierError.corruptArchive("tensor \(name) reaches past the end of its storage")
        }
        let read: (UnsafeRawBufferPointer, Int) -> Float
        switch dtype {
        case .float32: read = { Float(bitPattern: $0.loadUnaligned(fromByteOffset: $1 * 4, as: UInt32.self)) }
        case .float16: read = { Float(Float16(bitPattern: $0.loadUnaligned(fromByteOffset: $1 * 2, as: UInt16.self))) }
        case .bfloat16: read = { Float(bitPattern: UInt32($0.loadUnaligned(fromByteOffset: $1 * 2, as: UInt16.self)) << 16) }
        case .float64: read = { Float(Double(bitPattern: $0.loadUnaligned(fromByteOffset: $1 * 8, as: UInt64.self))) }
        case .int64: read = { Float(Int64(bitPattern: $0.loadUnaligned(fromByteOffset: $1 * 8, as: UInt64.self))) }
        default:
            throw ClassifierError.unsupportedTensor(name: name, reason: "element type \(dtype.rawValue) is not supported")
        }
        return storage.withUnsafeBytes { bytes in
            var values = [Float](repeating: 0, count: count)
            var index = [Int](repeating: 0, count: tensor.shape.count)
            for position in 0..<count {
                var element = tensor.offset
                for axis in index.indices { element += index[axis] * tensor.strides[axis] }
                values[position] = read(bytes, element)
                // Advance the multi-index, last axis fastest.
                var axis = index.count - 1
                while axis >= 0 {
                    index[axis] += 1
                    if index[axis] < tensor.shape[axis] { break }
                    index[axis] = 0
                    axis -= 1
                }
            }
            return values
        }
    }

    /// The dict of tensors: the root itself, or the value under a conventional wrapper key.
    private static func findStateDict(_ root: PickleValue) throws -> (PickleDict, [String]) {
        guard case .dict(let dict) = root else {
            throw ClassifierError.noStateDict("the checkpoint holds a single value, not a dict")
        }
        if dict.entries.contains(where: { if case .tensor = $0.value { true } else { false } }) {
            return (dict, [])
        }
        let keys = dict.entries.compactMap { if case .string(let key) = $0.key { key } else { nil } }
        for key in ["model", "state_dict", "model_state_dict", "net", "network"] {
            if case .dict(let inner)? = dict.value(forKey: key),
                inner.entries.contains(where: { if case .tensor = $0.value { true } else { false } })
            {
                return (inner, keys)
            }
        }
        throw ClassifierError.noStateDict("top-level keys are \(keys.map { "'\($0)'" }.joined(separator: ", "))")
    }
}
