import Foundation

/// Reads a model file into the engine's weight store, one tensor at a time so peak memory stays near
/// the size of the float32 weights.
enum ModelLoader {
    static func load(_ url: URL) throws -> (ModelManifest, ResNetEngine) {
        let (manifest, handle, dataStart, _) = try ModelFile.open(url)
        defer { try? handle.close() }
        guard manifest.baseWidth > 0, manifest.baseWidth <= 4096, manifest.classes > 0, manifest.classes <= 1_000_000 else {
            throw ClassifierError.invalidModelFile("implausible width or class count")
        }
        let spec = NetworkSpec(architecture: manifest.architecture, baseWidth: manifest.baseWidth, classes: manifest.classes)
        let stored = Dictionary(manifest.tensors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let needed = spec.packedTensors
        let store = WeightStore(tensors: needed.map { ($0.name, $0.shape.reduce(1, *)) })
        let table = manifest.precision == .float16 ? halfToFloatTable : []
        var scratch = Data()
        for (name, shape) in needed {
            guard let tensor = stored[name] else { throw ClassifierError.invalidModelFile("tensor \(name) is missing") }
            guard tensor.shape == shape else {
                throw ClassifierError.invalidModelFile("tensor \(name) has shape \(tensor.shape), expected \(shape)")
            }
            guard let destination = store.mutableTensor(name) else { continue }
            do {
                try handle.seek(toOffset: dataStart + UInt64(tensor.offset))
                scratch = try handle.read(upToCount: tensor.count * manifest.precision.bytesPerValue) ?? Data()
            } catch {
                throw ClassifierError.unreadableFile(path: url.path, reason: (error as NSError).localizedDescription)
            }
            guard scratch.count == tensor.count * manifest.precision.bytesPerValue else {
                throw ClassifierError.invalidModelFile("tensor \(name) is truncated")
            }
            scratch.withUnsafeBytes { bytes in
                switch manifest.precision {
                case .float32:
                    for index in 0..<tensor.count {
                        destination[index] = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                    }
                case .float16:
                    table.withUnsafeBufferPointer { table in
                        for index in 0..<tensor.count {
                            destination[index] = table[Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)))]
                        }
                    }
                }
            }
        }
        return (manifest, ResNetEngine(spec: spec, weights: store))
    }

    /// Every float16 bit pattern widened once: a table look-up beats converting 25 M values one by one.
    private static let halfToFloatTable: [Float] = (0...UInt16.max).map { Float(Float16(bitPattern: $0)) }
}
