import CPlantKernels
import Foundation

/// Reads a model file into the engine's weight store, one tensor at a time so peak memory stays near
/// the size of the stored weights.
enum ModelLoader {
    /// Models whose float32 weights fit in this many bytes are widened once while loading.
    static let widenAtLoadBelowBytes = 64 << 20

    static func load(_ url: URL, widenAtLoadBelowBytes: Int = widenAtLoadBelowBytes) throws -> (ModelManifest, ResNetEngine) {
        let (manifest, handle, dataStart, _) = try ModelFile.open(url)
        defer { try? handle.close() }
        guard manifest.baseWidth > 0, manifest.baseWidth <= 4096, manifest.classes > 0, manifest.classes <= 1_000_000,
            (16...4096).contains(manifest.input.size)
        else { throw ClassifierError.invalidModelFile("implausible width, class count or input size") }
        let spec = NetworkSpec(architecture: manifest.architecture, baseWidth: manifest.baseWidth, classes: manifest.classes)
        let stored = Dictionary(manifest.tensors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let needed = spec.packedTensors(inputSize: manifest.input.size)
        // Float16 weights stay half-size in memory (widened per layer during the forward pass) only when
        // the float32 copy would be big: ResNet50's 98 MiB would break the 150 MiB budget, ResNet18's
        // 45 MiB does not, and widening once here makes its forward pass faster.
        let floatBytes = needed.reduce(0) { $0 + $1.shape.reduce(1, *) } * 4
        let keepHalf = manifest.precision == .float16 && floatBytes > widenAtLoadBelowBytes
        let store = WeightStore(tensors: needed.map { name, shape in
            (name, shape.reduce(1, *), keepHalf && !name.hasSuffix(".bias"))
        })
        var scratch = Data()
        for (name, shape) in needed {
            guard let tensor = stored[name] else { throw ClassifierError.invalidModelFile("tensor \(name) is missing") }
            guard tensor.shape == shape else {
                throw ClassifierError.invalidModelFile("tensor \(name) has shape \(tensor.shape), expected \(shape)")
            }
            let byteCount = tensor.count * manifest.precision.bytesPerValue
            do {
                try handle.seek(toOffset: dataStart + UInt64(tensor.offset))
                scratch = try handle.read(upToCount: byteCount) ?? Data()
            } catch {
                throw ClassifierError.unreadableFile(path: url.path, reason: (error as NSError).localizedDescription)
            }
            guard scratch.count == byteCount else { throw ClassifierError.invalidModelFile("tensor \(name) is truncated") }
            // Model files are little-endian, as is every platform PlantGuide runs on.
            scratch.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                if let halves = store.mutableHalves(name), let target = halves.baseAddress {
                    memcpy(target, base, byteCount)
                } else if let floats = store.mutableFloats(name), let target = floats.baseAddress {
                    if manifest.precision == .float16 {
                        pg_half_to_float(base.assumingMemoryBound(to: UInt16.self), target, tensor.count)
                    } else {
                        memcpy(target, base, byteCount)
                    }
                }
            }
        }
        return (manifest, ResNetEngine(spec: spec, weights: store, winograd: spec.winogradConvs(inputSize: manifest.input.size)))
    }
}
