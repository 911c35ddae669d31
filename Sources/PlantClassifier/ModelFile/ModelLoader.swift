import CPlantDNNL
import CPlantKernels
import Foundation

/// Reads a model file into the engine's weight store, one tensor at a time so peak memory stays near
/// the size of the stored weights.
enum ModelLoader {
    /// Models whose float32 weights fit in this many bytes are widened once while loading.
    static let widenAtLoadBelowBytes = 64 << 20

    /// `threads` is what forward passes will use (oneDNN plans each layer's split for it at load); `layout` is
    /// how oneDNN's maps are laid out between layers.
    static func load(
        _ url: URL, widenAtLoadBelowBytes: Int = widenAtLoadBelowBytes, backend requested: ConvolutionBackend? = nil,
        threads: Int = 1, layout: DNNLLayout = .preferred
    ) throws -> (ModelManifest, ResNetEngine) {
        // Each layer passes through float32 copies that are freed again: keep them off the heap (process-wide,
        // blocks of 1 MiB and more) so they cannot fragment it and raise the peak memory of a whole `identify`.
        pg_heap_map_large_blocks()
        let (manifest, handle, dataStart, _) = try ModelFile.open(url)
        defer { try? handle.close() }
        guard manifest.baseWidth > 0, manifest.baseWidth <= 4096, manifest.classes > 0, manifest.classes <= 1_000_000,
            (16...4096).contains(manifest.input.size)
        else { throw ClassifierError.invalidModelFile("implausible width, class count or input size") }
        let spec = NetworkSpec(architecture: manifest.architecture, baseWidth: manifest.baseWidth, classes: manifest.classes)
        let stored = Dictionary(manifest.tensors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let allTensors = spec.packedTensors(inputSize: manifest.input.size)
        // Float16 weights stay half-size in memory (widened per layer during the forward pass) only when
        // the float32 copy would be big: ResNet50's 98 MiB would break the 150 MiB budget, ResNet18's
        // 45 MiB does not, and widening once here makes its forward pass faster.
        let floatBytes = allTensors.reduce(0) { $0 + $1.shape.reduce(1, *) } * 4
        let keepHalf = manifest.precision == .float16 && floatBytes > widenAtLoadBelowBytes
        let backend = requested ?? .automatic
        // With oneDNN the convolution weights go straight into its primitives, not the store.
        let convWeights = Set(spec.allConvs.flatMap { ["\($0.name).weight", "\($0.name).winograd"] })
        let needed = backend == .oneDNN ? allTensors.filter { !convWeights.contains($0.name) } : allTensors
        let store = WeightStore(tensors: needed.map { name, shape in
            (name, shape.reduce(1, *), keepHalf && !name.hasSuffix(".bias"))
        })
        var scratch = Data()
        /// Reads one stored tensor's bytes into `scratch`, checking that it exists, has the expected
        /// shape, is complete and (when the file records it) still has its checksum: a few milliseconds for
        /// ResNet50, on bytes that are read anyway.
        func read(_ name: String, shape: [Int], into scratch: inout Data) throws -> (ModelManifest.Tensor, Int) {
            guard let tensor = stored[name] else { throw ClassifierError.invalidModelFile("tensor \(name) is missing") }
            guard tensor.shape == shape else {
                throw ClassifierError.invalidModelFile("tensor \(name) has shape \(tensor.shape), expected \(shape)")
            }
            scratch = try ModelFile.readBytes(of: tensor, precision: manifest.precision, from: handle, dataStart: dataStart, url: url)
            if let expected = tensor.xxh64 { try ModelFile.check(scratch, of: tensor, expected: expected, url: url) }
            return (tensor, scratch.count)
        }
        for (name, shape) in needed {
            let (tensor, byteCount) = try read(name, shape: shape, into: &scratch)
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
        let winograd = spec.winogradConvs(inputSize: manifest.input.size)
        guard backend == .oneDNN else { return (manifest, ResNetEngine(spec: spec, weights: store, winograd: winograd)) }
        let convolutions = DNNLConvolutions(layout: layout)
        for (conv, placement) in spec.convPlacements(inputSize: manifest.input.size) {
            let isWinograd = winograd.contains(conv.name)
            let name = isWinograd ? "\(conv.name).winograd" : "\(conv.name).weight"
            let shape = isWinograd ? [16, conv.inChannels, conv.outChannels] : [conv.reduction, conv.outChannels]
            let (tensor, byteCount) = try read(name, shape: shape, into: &scratch)
            var values = [Float](repeating: 0, count: tensor.count)
            values.withUnsafeMutableBufferPointer { target in
                scratch.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress, let destination = target.baseAddress else { return }
                    if manifest.precision == .float16 {
                        pg_half_to_float(base.assumingMemoryBound(to: UInt16.self), destination, tensor.count)
                    } else {
                        memcpy(destination, base, byteCount)
                    }
                }
            }
            if isWinograd {
                let transformed = values
                transformed.withUnsafeBufferPointer { source in
                    values.withUnsafeMutableBufferPointer { target in
                        guard let from = source.baseAddress, let to = target.baseAddress else { return }
                        DNNLConvolutions.untransformWinograd(from, planes: conv.inChannels * conv.outChannels, into: to)
                    }
                }
                values.removeLast(values.count - conv.reduction * conv.outChannels)
            }
            guard let bias = store.mutableFloats("\(conv.name).bias")?.baseAddress else {
                throw ClassifierError.invalidModelFile("tensor \(conv.name).bias is missing")
            }
            let added = values.withUnsafeBufferPointer { weights in
                weights.baseAddress.map {
                    convolutions.add(
                        conv, height: placement.height, width: placement.width, weights: $0, bias: bias,
                        relu: placement.relu, accumulate: placement.accumulate, half: keepHalf,
                        readsImage: conv == spec.stem, threads: threads
                    )
                } ?? false
            }
            // oneDNN refused a layer (an unusual shape or CPU): run the whole model through BLAS.
            guard added else { return try load(url, widenAtLoadBelowBytes: widenAtLoadBelowBytes, backend: .blas, threads: threads) }
        }
        convolutions.finishLoading()
        return (manifest, ResNetEngine(spec: spec, weights: store, winograd: [], convolutions: convolutions))
    }
}
