import Foundation

/// Runs a torchvision ResNet forward pass with batch-norm already folded into the convolutions.
/// Immutable after creation; a forward pass needs a ``Workspace`` that only one caller uses at a time.
final class ResNetEngine: Sendable {
    let spec: NetworkSpec
    private let weights: WeightStore
    /// Convolutions that run as Winograd F(2×2, 3×3); their weights are stored transformed.
    let winograd: Set<String>

    /// Floats of scratch a workspace needs for widening float16 weights.
    var weightScratch: Int { max(weights.largestHalfTensor, convolutions?.largestHalfLayer ?? 0) }

    /// The convolutions as oneDNN primitives, when they run there; `weights` then holds only biases
    /// and the final linear layer.
    let convolutions: DNNLConvolutions?

    /// Uses `weights`, which must hold every tensor of `spec.packedTensors` (`<conv>.winograd` instead
    /// of `<conv>.weight` for the convolutions in `winograd`), or only the biases and `fc` tensors when
    /// `convolutions` covers every convolution.
    init(spec: NetworkSpec, weights: WeightStore, winograd: Set<String> = [], convolutions: DNNLConvolutions? = nil) {
        self.spec = spec
        self.weights = weights
        self.winograd = winograd
        self.convolutions = convolutions.flatMap { $0.covers(spec.allConvs) ? $0 : nil }
    }

    /// Whether the forward pass gathers patches (or Winograd tiles) into a workspace buffer.
    var gathersPatches: Bool { convolutions == nil }

    /// What one forward pass yields for `batch` images.
    struct Output {
        /// `[batch, classes]` raw scores.
        var logits: [Float]
        /// `[batch, features]` globally average-pooled features (the classifier layer's input), as computed.
        var features: [Float]
    }

    /// Channels per block of the maps between oneDNN's layers, or 0 when they are NHWC.
    var channelBlock: Int { convolutions?.channelBlock ?? 0 }

    /// Logits and pooled features for `batch` images in NCHW order (3 channels, `height`×`width`).
    func forward(
        _ input: UnsafePointer<Float>, batch: Int, height: Int, width: Int, workspace: Workspace, threads: Int
    ) throws -> Output {
        let buffers = workspace.activations
        var shape = FeatureShape(batch: batch, height: height, width: width, channels: 3)
        // Blocked maps: the stem reads the NCHW image as it is. Pooling then treats each block of channels as
        // an image of its own with `block` channels last, which is exactly how the blocked order lays it out.
        let block = channelBlock
        if let convolutions, block > 0 {
            shape = try run(convolutions, spec.stem, input, shape, into: buffers[1], workspace: workspace, threads: threads)
        } else {
            Kernels.toChannelsLast(input, shape, into: buffers[0])
            if let convolutions {
                shape = try run(convolutions, spec.stem, buffers[0], shape, into: buffers[1], workspace: workspace, threads: threads)
            } else {
                shape = convolve(spec.stem, buffers[0], shape, into: buffers[1], relu: true, workspace: workspace, threads: threads)
            }
        }
        let pooledHeight = (shape.height - 1) / 2 + 1, pooledWidth = (shape.width - 1) / 2 + 1
        Kernels.maxPool(
            buffers[1], storedShape(shape), into: buffers[2], outHeight: pooledHeight, outWidth: pooledWidth, threads: threads
        )
        shape.height = pooledHeight
        shape.width = pooledWidth

        var current = 2
        for block in spec.blocks {
            if let convolutions {
                current = try residualBlock(block, convolutions, buffers, &shape, current: current, workspace: workspace, threads: threads)
            } else {
                current = residualBlock(block, buffers, &shape, current: current, workspace: workspace, threads: threads)
            }
        }

        let pooled = buffers[(current + 1) % 4]
        Kernels.globalAveragePool(buffers[current], storedShape(shape), into: pooled)
        if let convolutions, convolutions.storedChannels(shape.channels) != shape.channels {
            // Drop the channels that pad the last block: `[batch, stored]` → `[batch, channels]`, front to back.
            let stored = convolutions.storedChannels(shape.channels)
            for image in 1..<max(1, batch) {
                memmove(pooled + image * shape.channels, pooled + image * stored, shape.channels * MemoryLayout<Float>.stride)
            }
        }
        let logits = buffers[(current + 2) % 4]
        let fc = weights.floats("fc.weight", scratch: workspace.weights, threads: threads)
        BLAS.parallelGemm(m: batch, n: spec.classes, k: spec.features, a: pooled, b: fc, c: logits, beta: 0, threads: threads)
        Kernels.epilogue(
            logits, rows: batch, bias: weights.floats("fc.bias", scratch: workspace.weights, threads: 1), channels: spec.classes,
            residual: nil, relu: false, threads: 1
        )
        return Output(
            logits: Array(UnsafeBufferPointer(start: logits, count: batch * spec.classes)),
            features: Array(UnsafeBufferPointer(start: pooled, count: batch * spec.features))
        )
    }

    /// `shape` as the pooling loops see its memory: NHWC as it is, or for blocked maps one image per block of
    /// channels, each with `block` channels last.
    private func storedShape(_ shape: FeatureShape) -> FeatureShape {
        guard let convolutions, convolutions.channelBlock > 0 else { return shape }
        let block = convolutions.channelBlock
        return FeatureShape(
            batch: shape.batch * convolutions.storedChannels(shape.channels) / block, height: shape.height, width: shape.width,
            channels: block
        )
    }

    /// One residual block through BLAS: the block reads `buffers[current]`; returns the buffer it wrote.
    private func residualBlock(
        _ block: BlockSpec, _ buffers: [UnsafeMutablePointer<Float>], _ shape: inout FeatureShape, current: Int,
        workspace: Workspace, threads: Int
    ) -> Int {
        let free = (0..<4).filter { $0 != current }
        var shortcut = buffers[current]
        if let downsample = block.downsample {
            _ = convolve(downsample, buffers[current], shape, into: buffers[free[2]], relu: false, workspace: workspace, threads: threads)
            shortcut = buffers[free[2]]
        }
        var source = current
        for (index, conv) in block.convs.enumerated() {
            let isLast = index == block.convs.count - 1
            let target = source == free[0] ? free[1] : free[0]
            shape = convolve(
                conv, buffers[source], shape, into: buffers[target], residual: isLast ? UnsafePointer(shortcut) : nil,
                relu: true, workspace: workspace, threads: threads
            )
            source = target
        }
        return source
    }

    /// One residual block through oneDNN. Its last convolution adds its output onto the shortcut in
    /// place, so the block ends in the shortcut's buffer.
    private func residualBlock(
        _ block: BlockSpec, _ convolutions: DNNLConvolutions, _ buffers: [UnsafeMutablePointer<Float>],
        _ shape: inout FeatureShape, current: Int, workspace: Workspace, threads: Int
    ) throws -> Int {
        let free = (0..<4).filter { $0 != current }
        var shortcut = current
        if let downsample = block.downsample {
            _ = try run(convolutions, downsample, buffers[current], shape, into: buffers[free[2]], workspace: workspace, threads: threads)
            shortcut = free[2]
        }
        var source = current
        for (index, conv) in block.convs.enumerated() {
            let target = index == block.convs.count - 1 ? shortcut : (source == free[0] ? free[1] : free[0])
            shape = try run(convolutions, conv, buffers[source], shape, into: buffers[target], workspace: workspace, threads: threads)
            source = target
        }
        return source
    }

    private func run(
        _ convolutions: DNNLConvolutions, _ conv: ConvSpec, _ input: UnsafePointer<Float>, _ shape: FeatureShape,
        into output: UnsafeMutablePointer<Float>, workspace: Workspace, threads: Int
    ) throws -> FeatureShape {
        guard convolutions.run(
            conv, input, shape, into: output, scratch: workspace.weights, scratchCapacity: workspace.weightCapacity, threads: threads
        ) else {
            throw ClassifierError.engineFailed("oneDNN could not run \(conv.name) on a \(shape.height)×\(shape.width) map")
        }
        return FeatureShape(
            batch: shape.batch, height: conv.outputSize(shape.height), width: conv.outputSize(shape.width), channels: conv.outChannels
        )
    }

    /// One folded convolution: gather patches unless the conv is a plain 1×1, multiply, then add bias
    /// and shortcut and apply ReLU in one pass.
    private func convolve(
        _ conv: ConvSpec, _ input: UnsafeMutablePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>,
        residual: UnsafePointer<Float>? = nil, relu: Bool, workspace: Workspace, threads: Int
    ) -> FeatureShape {
        let outShape = FeatureShape(
            batch: shape.batch, height: conv.outputSize(shape.height), width: conv.outputSize(shape.width),
            channels: conv.outChannels
        )
        let bias = weights.floats("\(conv.name).bias", scratch: workspace.weights, threads: threads)
        if winograd.contains(conv.name) {
            let tiles = Winograd.tileCount(outShape)
            Winograd.transformInput(input, shape, into: workspace.columns, zeros: workspace.zeros, threads: threads)
            let transformed = weights.floats("\(conv.name).winograd", scratch: workspace.weights, threads: threads)
            let (cin, cout) = (conv.inChannels, conv.outChannels)
            for position in 0..<16 {
                BLAS.parallelGemm(
                    m: tiles, n: cout, k: cin, a: workspace.columns + position * tiles * cin, b: transformed + position * cin * cout,
                    c: workspace.products + position * tiles * cout, beta: 0, threads: threads
                )
            }
            Winograd.transformOutput(
                workspace.products, outShape, into: output, bias: bias, residual: residual, relu: relu, zeros: workspace.zeros,
                threads: threads
            )
            return outShape
        }
        var patches = UnsafePointer(input)
        if conv.kernel > 1 || conv.stride > 1 {
            Kernels.im2col(
                input, shape, conv: conv, outHeight: outShape.height, outWidth: outShape.width, into: workspace.columns,
                threads: threads
            )
            patches = UnsafePointer(workspace.columns)
        }
        let kernel = weights.floats("\(conv.name).weight", scratch: workspace.weights, threads: threads)
        BLAS.parallelGemm(
            m: outShape.pixels, n: conv.outChannels, k: conv.reduction, a: patches, b: kernel, c: output, beta: 0, threads: threads
        )
        Kernels.epilogue(
            output, rows: outShape.pixels, bias: bias, channels: conv.outChannels, residual: residual, relu: relu, threads: threads
        )
        return outShape
    }
}
