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
        /// The header's entry for a tensor the network needs, which must have the shape the network expects.
        func entry(_ name: String, shape: [Int]) throws -> ModelManifest.Tensor {
            guard let tensor = stored[name] else { throw ClassifierError.invalidModelFile("tensor \(name) is missing") }
            guard tensor.shape == shape else {
                throw ClassifierError.invalidModelFile("tensor \(name) has shape \(tensor.shape), expected \(shape)")
            }
            return tensor
        }
        // Every tensor the network needs is in the file with its shape, and so (as `open` checked) within the file,
        // before anything is allocated for it: a damaged header cannot make loading ask for more memory than the file
        // holds.
        for (name, shape) in allTensors { _ = try entry(name, shape: shape) }
        let store = WeightStore(tensors: needed.map { name, shape in
            (name, shape.reduce(1, *), keepHalf && !name.hasSuffix(".bias"))
        })
        let reader = TensorReader(handle: handle, dataStart: dataStart, precision: manifest.precision, url: url)
        /// The stored bytes of one tensor (valid until the next read), checking that it exists, has the expected
        /// shape, is complete and (when the file records it) still has its checksum: a few milliseconds for
        /// ResNet50, on bytes that are read anyway.
        func read(_ name: String, shape: [Int]) throws -> (ModelManifest.Tensor, UnsafeRawPointer) {
            let tensor = try entry(name, shape: shape)
            guard let bytes = try reader.read(tensor).baseAddress else { throw ClassifierError.invalidModelFile("tensor \(name) is empty") }
            return (tensor, bytes)
        }
        /// Widens (float16) or copies a tensor's stored values into `target`.
        func floats(_ tensor: ModelManifest.Tensor, from bytes: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>) {
            // Model files are little-endian, as is every platform PlantGuide runs on.
            if manifest.precision == .float16 {
                pg_half_to_float(bytes.assumingMemoryBound(to: UInt16.self), target, tensor.count)
            } else {
                memcpy(target, bytes, tensor.count * MemoryLayout<Float>.size)
            }
        }
        for (name, shape) in needed {
            let (tensor, bytes) = try read(name, shape: shape)
            if let halves = store.mutableHalves(name), let target = halves.baseAddress {
                memcpy(target, bytes, tensor.count * MemoryLayout<UInt16>.size)
            } else if let target = store.mutableFloats(name)?.baseAddress {
                floats(tensor, from: bytes, into: target)
            }
        }
        let winograd = spec.winogradConvs(inputSize: manifest.input.size)
        guard backend == .oneDNN else { return (manifest, ResNetEngine(spec: spec, weights: store, winograd: winograd)) }
        let convolutions = DNNLConvolutions(layout: layout)
        // Also when a layer fails: frees the loading thread's scratch.
        defer { convolutions.finishLoading() }
        // Each layer's float32 weights pass through the same two buffers, grown to the largest layer read so far: fresh
        // ones per layer cost a page fault per 4 KiB, most of the load time. Sized by what was read (and so by the
        // file), never by what the header claims.
        let values = GrowingFloats(), untransformed = GrowingFloats()
        // Which engine runs each layer: timed here on first load and remembered beside the file per CPU (measured layouts
        // only; the others follow the rules and need no plan).
        var plan = convolutions.measured
            ? LayerPlan(
                cpu: CPUInfo.current.signature, threads: threads, channelBlock: convolutions.channelBlock,
                model: LayerPlan.modelSignature(of: url, manifest: manifest), layers: [:]
            ) : nil
        let remembered = plan.flatMap { LayerPlan.remembered(for: url, matching: $0) }
        for (conv, placement) in spec.convPlacements(inputSize: manifest.input.size) {
            let isWinograd = winograd.contains(conv.name)
            let name = isWinograd ? "\(conv.name).winograd" : "\(conv.name).weight"
            let shape = isWinograd ? [16, conv.inChannels, conv.outChannels] : [conv.reduction, conv.outChannels]
            let (tensor, bytes) = try read(name, shape: shape)
            // Float32 weights are used where the reader put them (64-byte aligned, valid until the next read): a copy
            // of the largest layer (9.4 MiB in ResNet50) would stay resident to the end of loading, at its peak.
            let floats32: UnsafePointer<Float>
            if manifest.precision == .float32 {
                floats32 = bytes.assumingMemoryBound(to: Float.self)
            } else {
                let widened = values.room(tensor.count)
                floats(tensor, from: bytes, into: widened)
                floats32 = UnsafePointer(widened)
            }
            var weights = floats32
            if isWinograd {
                let plain = untransformed.room(conv.reduction * conv.outChannels)
                DNNLConvolutions.untransformWinograd(floats32, planes: conv.inChannels * conv.outChannels, into: plain)
                weights = UnsafePointer(plain)
            }
            guard let bias = store.mutableFloats("\(conv.name).bias")?.baseAddress else {
                throw ClassifierError.invalidModelFile("tensor \(conv.name).bias is missing")
            }
            let choice = convolutions.addPlanned(
                conv, height: placement.height, width: placement.width, weights: weights, bias: bias, relu: placement.relu,
                accumulate: placement.accumulate, half: keepHalf, readsImage: conv == spec.stem, threads: threads,
                remembered: remembered?.layers[conv.name]
            )
            plan?.layers[conv.name] = choice
            // oneDNN refused a layer (an unusual shape or CPU): run the whole model through BLAS.
            guard choice != nil else { return try load(url, widenAtLoadBelowBytes: widenAtLoadBelowBytes, backend: .blas, threads: threads) }
        }
        if let plan, plan != remembered { plan.save(beside: url) }
        return (manifest, ResNetEngine(spec: spec, weights: store, winograd: [], convolutions: convolutions))
    }
}

/// A float buffer reused from layer to layer while a model loads, grown when a layer needs more.
private final class GrowingFloats {
    private var buffer = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)

    /// Room for `count` floats, valid until the next call.
    func room(_ count: Int) -> UnsafeMutablePointer<Float> {
        if buffer.count < max(count, 1) {
            buffer.deallocate()
            buffer = .allocate(capacity: max(count, 1))
        }
        return buffer.baseAddress!
    }

    deinit { buffer.deallocate() }
}
