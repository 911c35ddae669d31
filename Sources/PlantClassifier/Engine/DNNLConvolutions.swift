import CPlantDNNL
import Dispatch
import CPlantKernels

/// How the feature maps between oneDNN's convolutions are laid out, and whether our own kernels may run (for the
/// benchmark and the tests, which force each path; everything else uses ``preferred``).
@_spi(Benchmark) public struct DNNLLayout: Sendable, Hashable, CustomStringConvertible {
    /// Channels per block of the maps (8 for nChw8c, 16 for nChw16c), or 0 for NHWC.
    public var channelBlock: Int
    /// Whether 3×3 and 1×1 stride-1 layers may run on our own kernels (only with blocked maps).
    public var ownKernels: Bool
    /// Whether each layer our own kernels could run is timed on both them and oneDNN when the model loads, and runs on
    /// the faster (remembered beside the model file, see ``LayerPlan``); otherwise the rules of
    /// ``DNNLConvolutions/usesOwnKernel(_:height:half:)`` decide.
    public var measured = false

    /// Maps blocked by `channelBlock` (8 or 16) channels, with our own kernels by rule or only oneDNN's.
    public static func blocked(_ channelBlock: Int, ownKernels: Bool = true) -> DNNLLayout {
        DNNLLayout(channelBlock: channelBlock, ownKernels: ownKernels)
    }

    /// NHWC, as the BLAS path keeps them.
    public static let channelsLast = DNNLLayout(channelBlock: 0, ownKernels: false)
    /// The default: blocked maps in PlantGuide's block for this CPU (nChw16c with AVX-512F, nChw8c with AVX2; see
    /// `pg_dnnl_channel_block`; on a 2-core AVX2 machine 13–21 % off ResNet18's forward pass and 0–14 % off ResNet50's
    /// against channels last, which it falls back to where the CPU has neither), each layer on the fastest of our kernels
    /// and oneDNN's as timed at load. Our Winograd kernels can run the 3×3 stride-1 layers on maps of 7 rows or more
    /// (F(2×2, 3×3) with float32 weights on maps of 14 or fewer, F(4×4, 3×3) otherwise), and with float16 weights our
    /// pointwise kernels the 1×1 stride-1 layers on maps of 14 rows or fewer.
    public static let preferred = DNNLLayout(channelBlock: DNNLConvolutions.machineChannelBlock, ownKernels: true, measured: true)

    /// Both blocks oneDNN and our kernels run on every x86-64 CPU (none where oneDNN is missing).
    public static var allBlocks: [Int] { DNNLConvolutions.isAvailable ? [8, 16] : [] }

    public var description: String {
        channelBlock == 0 ? "channels last"
            : "blocked by \(channelBlock)\(ownKernels ? measured ? ", fastest per layer" : "" : ", oneDNN only")"
    }
}

/// The network's convolutions as oneDNN primitives (JIT kernels for the machine's vector unit, bias,
/// residual add and ReLU fused), with their weights in oneDNN's own layout. Created while loading; only
/// available where oneDNN is (Linux with libdnnl), elsewhere the engine multiplies through BLAS. Forward
/// passes are serialised by ``Classifier``; a primitive is rebuilt when the input size changes.
final class DNNLConvolutions: @unchecked Sendable {
    private var convolutions: [String: OpaquePointer] = [:]
    /// Floats of scratch a forward pass needs to widen the largest float16 layer.
    private(set) var largestHalfLayer = 0
    /// Channels per block of the maps between layers (nChw8c or nChw16c), or 0 when they are NHWC. The stem
    /// then reads the caller's NCHW image as it is, and every map's channels are padded to whole blocks.
    let channelBlock: Int
    /// Whether layers may run on our own kernels: 3×3 stride-1 ones on the Winograd kernels (see
    /// ``usesWinograd(_:height:half:)``), 1×1 stride-1 ones on the pointwise kernels (see ``usesPointwise(_:height:half:)``).
    /// Their weights take the room oneDNN's would, except on Winograd layers whose transformed weights fit in 4 MiB,
    /// which keep those (4× in F(4×4, 3×3) tiles, 16/9× in F(2×2, 3×3) tiles, see ``winogradTile(height:width:half:)``).
    let ownKernels: Bool

    /// Whether oneDNN is compiled in and starts on this machine.
    static var isAvailable: Bool { pg_dnnl_available() != 0 }

    /// The channel block PlantGuide chooses for this CPU (see `pg_dnnl_channel_block`), 0 for NHWC.
    static let machineChannelBlock = Int(pg_dnnl_channel_block())

    /// Whether this CPU runs our own Winograd and pointwise kernels (x86-64 with AVX2, FMA and F16C, and oneDNN).
    static var cpuRunsOwnKernels: Bool { pg_conv_winograd_applies(3, 1, 1, 1, PG_LAYOUT_BLOCKED) != 0 }

    /// Whether this CPU also runs the AVX-512 version of the Winograd kernels (AVX-512F).
    static var cpuRunsAVX512Kernels: Bool { pg_conv_winograd_avx512_applies(3, 1, 1, 1, PG_LAYOUT_BLOCKED) != 0 }

    /// Convolutions for maps laid out as `layout`; a block other than 8 or 16 means NHWC.
    init(layout: DNNLLayout = .preferred) {
        channelBlock = [8, 16].contains(layout.channelBlock) ? layout.channelBlock : 0
        ownKernels = layout.ownKernels && channelBlock > 0 && Self.cpuRunsOwnKernels
        measured = ownKernels && layout.measured
    }

    /// Whether the loader times our own kernels against oneDNN's for each layer (see ``addFastest``).
    let measured: Bool
    /// The timings behind each layer's engine, where it was timed (by ``addFastest`` or remembered from a plan).
    private(set) var timings: [String: [String: Double]] = [:]

    /// The smallest map (rows) a 3×3 layer runs on the Winograd kernels: every stride-1 3×3 layer of a ResNet at 224×224.
    /// On a 2-core AVX2 machine, against oneDNN's direct kernels with 2 threads, they took 0.41–0.46× the time at 56×56
    /// with 64 channels, 0.33–0.37× at 28×28 with 128, 0.60–0.63× at 14×14 with 256 and 0.84–0.90× at 7×7 with 512.
    static let winogradMinimumSide = 7

    /// Whether `conv` on `height`-row maps runs on the Winograd kernels rather than oneDNN.
    func usesWinograd(_ conv: ConvSpec, height: Int, half: Bool) -> Bool {
        ownKernels && height >= Self.winogradMinimumSide
            && pg_conv_winograd_applies(Int32(conv.kernel), Int32(conv.stride), Int32(conv.padding), half ? 1 : 0, PG_LAYOUT_BLOCKED) != 0
    }

    /// Outputs per tile side of a Winograd layer on `height`×`width` maps: 2 (F(2×2, 3×3)) for float32 weights on maps
    /// of at most `PG_WINOGRAD_SMALL_TILE_SIDE` (14) a side, where that was 3–4.5 % off ResNet50's forward pass, otherwise
    /// 4 (F(4×4, 3×3)).
    static func winogradTile(height: Int, width: Int, half: Bool) -> Int {
        Int(pg_conv_winograd_tile(Int32(height), Int32(width), half ? 1 : 0))
    }

    /// The largest map (rows) a 1×1 layer with float16 weights runs on the pointwise kernels: the last two stages of a
    /// ResNet at 224×224. They widen the weights a panel at a time as they go, where oneDNN needs the whole layer widened
    /// first. On a 2-core AVX2 machine, alternating forward passes of ResNet50 from a float16 file in one process: 3–4 %
    /// off with 14, the same with 28, 2 % with 56. With float32 weights the pointwise kernels were no faster than oneDNN's
    /// inside a forward pass (each layer's weights come from memory), so those layers stay on oneDNN.
    static let pointwiseMaximumSide = 14

    /// Whether `conv` on `height`-row maps runs on the pointwise kernels rather than oneDNN: float16 weights only.
    func usesPointwise(_ conv: ConvSpec, height: Int, half: Bool) -> Bool {
        ownKernels && height <= Self.pointwiseMaximumSide
            && pg_conv_pointwise_applies(Int32(conv.kernel), Int32(conv.stride), Int32(conv.padding), half ? 1 : 0, PG_LAYOUT_BLOCKED) != 0
    }

    /// Whether `conv` on `height`-row maps runs on one of our own kernels rather than oneDNN.
    func usesOwnKernel(_ conv: ConvSpec, height: Int, half: Bool) -> Bool {
        usesWinograd(conv, height: height, half: half) || usesPointwise(conv, height: height, half: half)
    }

    deinit {
        for convolution in convolutions.values { pg_conv_destroy(convolution) }
    }

    /// Whether a run of `conv` with one thread has built its oneDNN primitive split for one thread (see `pg_conv_run`).
    func runsSingle(_ conv: ConvSpec) -> Bool { convolutions[conv.name].map { pg_conv_runs_single($0) != 0 } ?? false }

    /// Bytes of weights held in oneDNN's layout.
    var weightBytes: Int { convolutions.values.reduce(0) { $0 + Int(pg_conv_weight_bytes($1)) } }

    /// Adds `conv` for `height`×`width` inputs from HWIO weights (`[(ky·k + kx)·cin + ci, co]`, the
    /// packed layout of the model file). Returns false when oneDNN refuses it. `readsImage` marks the
    /// stem, whose input is the caller's NCHW image when the maps are blocked.
    /// With `half`, the weights are kept as float16 in oneDNN's layout and widened into the forward
    /// pass's scratch right before their layer runs (half the resident size, like the BLAS path). oneDNN
    /// splits each layer's work for `threads` when it is added; runs should use the same count. `engine` forces
    /// oneDNN or our own kernel (where ``usesOwnKernel(_:height:half:)`` allows one); by default the rules decide.
    func add(
        _ conv: ConvSpec, height: Int, width: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        relu: Bool, accumulate: Bool, half: Bool, readsImage: Bool, threads: Int, engine: LayerEngine? = nil
    ) -> Bool {
        guard let created = create(
            conv, height: height, width: width, weights: weights, bias: bias, relu: relu, accumulate: accumulate, half: half,
            readsImage: readsImage, threads: threads, engine: engine ?? .own
        ) else { return false }
        keep(created, for: conv, height: height, width: width, half: half)
        return true
    }

    /// Adds `conv` as the layout says: on the engine of `remembered` (a plan measured earlier on this CPU) or, when there
    /// is none, on the fastest of its candidates (``addFastest``) when the layout is ``DNNLLayout/measured``; otherwise by
    /// the rules. Returns the layer's choice with its timings (nil when oneDNN refuses the layer), which are also kept
    /// for ``timings``.
    func addPlanned(
        _ conv: ConvSpec, height: Int, width: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        relu: Bool, accumulate: Bool, half: Bool, readsImage: Bool, threads: Int, remembered: LayerChoice?
    ) -> LayerChoice? {
        let choice: LayerChoice?
        if measured, remembered == nil {
            choice = addFastest(
                conv, height: height, width: width, weights: weights, bias: bias, relu: relu, accumulate: accumulate, half: half,
                readsImage: readsImage, threads: threads
            )
        } else {
            let engine = measured ? remembered?.engine : nil
            let added = add(
                conv, height: height, width: width, weights: weights, bias: bias, relu: relu, accumulate: accumulate, half: half,
                readsImage: readsImage, threads: threads, engine: engine
            )
            choice = !added ? nil : measured ? remembered : self.engine(of: conv).map { LayerChoice(engine: $0) }
        }
        if let timed = choice?.milliseconds, !timed.isEmpty { timings[conv.name] = timed }
        return choice
    }

    /// The engines that can run `conv` on `height`-row maps here: oneDNN, and where the rules allow, our AVX2 kernel and
    /// (with AVX-512F, for Winograd layers) our AVX-512 one.
    func candidates(_ conv: ConvSpec, height: Int, half: Bool) -> [LayerEngine] {
        guard usesOwnKernel(conv, height: height, half: half) else { return [.oneDNN] }
        return [.own] + (usesWinograd(conv, height: height, half: half) && Self.cpuRunsAVX512Kernels ? [.ownAVX512] : []) + [.oneDNN]
    }

    /// Adds `conv` as ``add(_:height:width:weights:bias:relu:accumulate:half:readsImage:threads:engine:)`` does, on
    /// whichever of its ``candidates(_:height:half:)`` runs it fastest here: each is created and run on a map of the
    /// layer's size, one warm-up run then `rounds` rounds taking turns, and the least time of each counts (ties go to the
    /// earlier candidate). Layers only oneDNN can run go to it untimed. Returns the choice, or nil when oneDNN refuses
    /// the layer.
    func addFastest(
        _ conv: ConvSpec, height: Int, width: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        relu: Bool, accumulate: Bool, half: Bool, readsImage: Bool, threads: Int, rounds: Int = 3
    ) -> LayerChoice? {
        let created = candidates(conv, height: height, half: half).compactMap { engine in
            create(
                conv, height: height, width: width, weights: weights, bias: bias, relu: relu, accumulate: accumulate, half: half,
                readsImage: readsImage, threads: threads, engine: engine
            ).map { (engine, $0) }
        }
        guard let first = created.first else { return nil }
        guard created.count > 1 else {
            keep(first.1, for: conv, height: height, width: width, half: half)
            return LayerChoice(engine: first.0)
        }
        let input = FeatureShape(batch: 1, height: height, width: width, channels: conv.inChannels)
        let outputHeight = (height + 2 * conv.padding - conv.kernel) / conv.stride + 1
        let outputWidth = (width + 2 * conv.padding - conv.kernel) / conv.stride + 1
        let source = UnsafeMutableBufferPointer<Float>.allocate(capacity: storedChannels(conv.inChannels) * height * width)
        let target = UnsafeMutableBufferPointer<Float>.allocate(capacity: storedChannels(conv.outChannels) * outputHeight * outputWidth)
        let halfCount = created.map { candidate in
            var count = 0
            _ = pg_conv_half_weights(candidate.1, &count)
            return count
        }.max() ?? 0
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, halfCount))
        defer {
            source.deallocate()
            target.deallocate()
            scratch.deallocate()
        }
        // Values that stay normal numbers through the layer: subnormals would slow any engine down.
        source.initialize(repeating: 0.5)
        target.initialize(repeating: 0.25)
        var best = [Double](repeating: .infinity, count: created.count)
        for round in 0...max(1, rounds) {
            for (index, candidate) in created.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                let ran = Self.run(
                    candidate.1, source.baseAddress!, input, into: target.baseAddress!, scratch: scratch.baseAddress!,
                    scratchCapacity: scratch.count, threads: threads
                )
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                // A candidate that fails to run is never chosen; the first round only warms up.
                if !ran { best[index] = .nan } else if round > 0, !best[index].isNaN { best[index] = min(best[index], seconds) }
            }
        }
        let ranked = created.indices.filter { !best[$0].isNaN }.sorted { best[$0] < best[$1] || (best[$0] == best[$1] && $0 < $1) }
        let winner = ranked.first ?? created.count - 1
        for (index, candidate) in created.enumerated() {
            if index == winner { keep(candidate.1, for: conv, height: height, width: width, half: half) } else { pg_conv_destroy(candidate.1) }
        }
        var timings: [String: Double] = [:]
        for index in ranked { timings[created[index].0.rawValue] = best[index] * 1000 }
        return LayerChoice(engine: created[winner].0, milliseconds: timings)
    }

    /// Creates `conv` on `engine` when it is one of the layer's ``candidates(_:height:half:)``; otherwise on our AVX2 kernel
    /// for `ownAVX512` where that is one, else on oneDNN.
    private func create(
        _ conv: ConvSpec, height: Int, width: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        relu: Bool, accumulate: Bool, half: Bool, readsImage: Bool, threads: Int, engine: LayerEngine
    ) -> OpaquePointer? {
        let layout = channelBlock == 0 ? PG_LAYOUT_NHWC : readsImage ? PG_LAYOUT_PLANAR_TO_BLOCKED : PG_LAYOUT_BLOCKED
        let allowed = layout == PG_LAYOUT_BLOCKED ? candidates(conv, height: height, half: half) : [.oneDNN]
        let chosen: LayerEngine = allowed.contains(engine) ? engine : engine == .ownAVX512 && allowed.contains(.own) ? .own : .oneDNN
        let own: Int32 = switch chosen {
        case .oneDNN: PG_OWN_NONE
        case .own: PG_OWN_AVX2
        case .ownAVX512: PG_OWN_AVX512
        }
        return pg_conv_create(
            1, Int32(height), Int32(width), Int32(conv.inChannels), Int32(conv.outChannels), Int32(conv.kernel),
            Int32(conv.stride), Int32(conv.padding), weights, bias, relu ? 1 : 0, accumulate ? 1 : 0, half ? 1 : 0,
            layout, Int32(channelBlock), Int32(max(1, threads)), own
        )
    }

    /// Makes `created` (for `height`×`width` maps, float16 weights or not) the convolution of `conv`.
    private func keep(_ created: OpaquePointer, for conv: ConvSpec, height: Int, width: Int, half: Bool) {
        if let old = convolutions.updateValue(created, forKey: conv.name) { pg_conv_destroy(old) }
        var count = 0
        if pg_conv_half_weights(created, &count) != nil { largestHalfLayer = max(largestHalfLayer, count) }
        let tile = Self.winogradTile(height: height, width: width, half: half)
        let own = pg_conv_uses_own_kernel(created)
        kernels[conv.name] = own == PG_OWN_NONE ? "oneDNN"
            : conv.kernel == 3 ? "Winograd F(\(tile)×\(tile), 3×3)\(own == PG_OWN_AVX512 ? " AVX-512" : "")" : "pointwise"
    }

    /// What runs each layer: `oneDNN`, `Winograd F(4×4, 3×3)`, `Winograd F(2×2, 3×3)` or `pointwise`.
    private(set) var kernels: [String: String] = [:]

    /// What runs `conv` (nil when it was never added).
    func engine(of conv: ConvSpec) -> LayerEngine? {
        convolutions[conv.name].map { convolution in
            switch pg_conv_uses_own_kernel(convolution) {
            case PG_OWN_NONE: .oneDNN
            case PG_OWN_AVX512: .ownAVX512
            default: .own
            }
        }
    }

    /// Frees the scratch layers passed through while being added and returns memory freed meanwhile to the system;
    /// call once after the last ``add`` (or a failed one), on the thread that added them.
    func finishLoading() { pg_dnnl_trim() }

    /// Whether every one of `convs` is here.
    func covers(_ convs: [ConvSpec]) -> Bool { convs.allSatisfy { convolutions[$0.name] != nil } }

    /// Channels `channels` takes in memory: rounded up to whole blocks when the maps are blocked.
    func storedChannels(_ channels: Int) -> Int { Self.storedChannels(channels, block: channelBlock) }

    /// `channels` rounded up to whole blocks of `block`, or as it is when `block` is 0 (NHWC maps).
    static func storedChannels(_ channels: Int, block: Int) -> Int {
        block == 0 ? channels : (channels + block - 1) / block * block
    }

    /// Runs `conv` on `input` of `shape` (laid out as ``channelBlock`` says; NCHW for the stem of blocked
    /// maps) into `output` (which must already hold the shortcut for a convolution added with
    /// `accumulate`). Returns false when oneDNN fails.
    /// `scratch` (room for ``largestHalfLayer`` floats) takes float16 weights widened for the call.
    func run(
        _ conv: ConvSpec, _ input: UnsafePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>,
        scratch: UnsafeMutablePointer<Float>, scratchCapacity: Int, threads: Int
    ) -> Bool {
        guard let convolution = convolutions[conv.name] else { return false }
        return Self.run(convolution, input, shape, into: output, scratch: scratch, scratchCapacity: scratchCapacity, threads: threads)
    }

    /// Runs one created convolution as ``run(_:_:_:into:scratch:scratchCapacity:threads:)`` does.
    private static func run(
        _ convolution: OpaquePointer, _ input: UnsafePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>,
        scratch: UnsafeMutablePointer<Float>, scratchCapacity: Int, threads: Int
    ) -> Bool {
        guard pg_conv_prepare(convolution, Int32(shape.batch), Int32(shape.height), Int32(shape.width)) == 1 else { return false }
        var count = 0
        var widened: UnsafeMutablePointer<Float>?
        if let halves = pg_conv_half_weights(convolution, &count) {
            guard count <= scratchCapacity else { return false }
            parallelRanges(count, threads: threads, minimumPerThread: 262_144) { range in
                pg_half_to_float(halves + range.lowerBound, scratch + range.lowerBound, range.count)
            }
            widened = scratch
        }
        return pg_conv_run(
            convolution, Int32(shape.batch), Int32(shape.height), Int32(shape.width), input, output, Int32(max(1, threads)),
            widened
        ) == 0
    }

    /// Plain 3×3 weights (HWIO) from Winograd-transformed ones `U = G g Gᵀ` (`[16, cin, cout]`):
    /// `g = L U Lᵀ` with the left inverse `L` of `G` (rows e₀, e₁ − e₂, e₃).
    static func untransformWinograd(_ transformed: UnsafePointer<Float>, planes: Int, into weights: UnsafeMutablePointer<Float>) {
        // Which rows (or columns) of U, with which sign, make up each row (or column) of g.
        let terms: [[(index: Int, sign: Float)]] = [[(0, 1)], [(1, 1), (2, -1)], [(3, 1)]]
        for a in 0..<3 {
            for b in 0..<3 {
                let target = weights + (a * 3 + b) * planes
                target.update(repeating: 0, count: planes)
                for row in terms[a] {
                    for column in terms[b] {
                        let source = transformed + (row.index * 4 + column.index) * planes
                        let sign = row.sign * column.sign
                        for i in 0..<planes { target[i] += sign * source[i] }
                    }
                }
            }
        }
    }
}
