import Foundation

/// A value built by the restricted unpickler. Only data and tensors: there is no case for an
/// arbitrary Python object, so nothing else can be produced.
indirect enum PickleValue {
    case none
    case bool(Bool)
    case int(Int)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case tuple([PickleValue])
    case list(PickleList)
    case dict(PickleDict)
    /// An allowed callable or class, waiting to be applied by REDUCE.
    case global(AllowedGlobal)
    /// The persistent id of a storage in the archive's `data/` folder.
    case storage(StorageReference)
    case tensor(TensorReference)
}

/// Lists and dicts are mutated after creation (APPENDS, SETITEMS) and shared through the memo, so
/// they are references.
final class PickleList {
    var items: [PickleValue] = []
}

final class PickleDict {
    /// Entries in insertion order (OrderedDict keeps it, and it is the state dict's order).
    var entries: [(key: PickleValue, value: PickleValue)] = []

    func value(forKey key: String) -> PickleValue? {
        entries.first { if case .string(key) = $0.key { true } else { false } }?.value
    }
}

/// The globals a state dict needs; the unpickler refuses every other.
enum AllowedGlobal: Equatable {
    case orderedDict
    case rebuildTensor
    case rebuildParameter
    case codecsEncode
    case storageType(TensorDType)

    init?(module: String, name: String) {
        switch (module, name) {
        case ("collections", "OrderedDict"): self = .orderedDict
        case ("torch._utils", "_rebuild_tensor_v2"): self = .rebuildTensor
        case ("torch._utils", "_rebuild_parameter"): self = .rebuildParameter
        case ("_codecs", "encode"): self = .codecsEncode
        case ("torch", _):
            guard name.hasSuffix("Storage"), let dtype = TensorDType(storageName: name) else { return nil }
            self = .storageType(dtype)
        default: return nil
        }
    }
}

/// Element types of PyTorch storages.
public enum TensorDType: String, Sendable, Codable {
    case float32, float16, bfloat16, float64, int64, int32, int16, int8, uint8, bool

    init?(storageName: String) {
        switch storageName {
        case "FloatStorage": self = .float32
        case "HalfStorage": self = .float16
        case "BFloat16Storage": self = .bfloat16
        case "DoubleStorage": self = .float64
        case "LongStorage": self = .int64
        case "IntStorage": self = .int32
        case "ShortStorage": self = .int16
        case "CharStorage": self = .int8
        case "ByteStorage": self = .uint8
        case "BoolStorage": self = .bool
        default: return nil
        }
    }

    /// Bytes per element.
    var size: Int {
        switch self {
        case .float64, .int64: 8
        case .float32, .int32: 4
        case .float16, .bfloat16, .int16: 2
        case .int8, .uint8, .bool: 1
        }
    }
}

/// `('storage', torch.FloatStorage, '0', 'cpu', 1234)`.
struct StorageReference {
    var key: String
    var dtype: TensorDType
    var elementCount: Int
}

/// A tensor view of a storage, as rebuilt by `torch._utils._rebuild_tensor_v2`.
struct TensorReference {
    var storage: StorageReference
    var offset: Int
    var shape: [Int]
    var strides: [Int]

    var elementCount: Int { shape.reduce(1, *) }
}
