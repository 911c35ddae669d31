import Foundation
import Testing
@_spi(Benchmark) @testable import PlantClassifier

/// The Winograd F(4×4, 3×3) and F(2×2, 3×3) kernels for 3×3 stride-1 layers against oneDNN's direct kernels on the same
/// blocked maps: sizes that are not whole tiles, channels that are not whole blocks, a batch of two, the residual add and
/// ReLU, weights transformed at load and during each run (more than 128 input channels, a last panel of 8 output
/// channels), float16.
@Suite struct WinogradKernelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var batch: Int, height: Int, width: Int, inChannels: Int, outChannels: Int
        var relu: Bool, accumulate: Bool, half = false
        var testDescription: String {
            "\(batch)×\(height)×\(width), \(inChannels)→\(outChannels)\(relu ? ", ReLU" : "")\(accumulate ? ", residual" : "")"
                + (half ? ", float16" : "")
        }
    }

    static let cases = [
        Case(batch: 1, height: 16, width: 16, inChannels: 16, outChannels: 32, relu: true, accumulate: false),
        Case(batch: 2, height: 15, width: 17, inChannels: 5, outChannels: 24, relu: true, accumulate: true),
        Case(batch: 1, height: 14, width: 30, inChannels: 40, outChannels: 8, relu: false, accumulate: false),
        Case(batch: 3, height: 19, width: 14, inChannels: 24, outChannels: 13, relu: false, accumulate: true),
        Case(batch: 1, height: 9, width: 7, inChannels: 168, outChannels: 184, relu: true, accumulate: true),
        Case(batch: 2, height: 7, width: 11, inChannels: 40, outChannels: 24, relu: true, accumulate: false, half: true),
        // F(2×2, 3×3): float32 weights on maps of 14 or fewer a side; odd sizes leave half tiles.
        Case(batch: 2, height: 14, width: 13, inChannels: 24, outChannels: 40, relu: true, accumulate: true),
        Case(batch: 1, height: 7, width: 7, inChannels: 136, outChannels: 8, relu: false, accumulate: false),
        // F(2×2, 3×3) with weights over 4 MiB transformed (16 per pair), so transformed during each run.
        Case(batch: 1, height: 7, width: 6, inChannels: 264, outChannels: 256, relu: true, accumulate: true),
    ]

    /// Each case in both channel blocks, whichever this CPU would choose.
    @Test(arguments: cases, [8, 16])
    func matchesOneDNNsDirectKernels(_ shape: Case, block: Int) throws {
        try check(shape, block: block, engine: .own)
    }

    /// The same with the products on AVX-512 registers (whole panels of 16 output channels; a last panel of 8 stays on
    /// AVX2). Skipped on CPUs without AVX-512F.
    @Test(.enabled(if: DNNLConvolutions.cpuRunsAVX512Kernels, "this CPU has no AVX-512F"), arguments: cases, [8, 16])
    func avx512MatchesOneDNNsDirectKernels(_ shape: Case, block: Int) throws {
        try check(shape, block: block, engine: .ownAVX512)
    }

    private func check(_ shape: Case, block: Int, engine: LayerEngine) throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        try #require(DNNLConvolutions.cpuRunsOwnKernels, "our kernels need AVX2, FMA and F16C")
        let winograd = DNNLConvolutions(layout: .blocked(block)), direct = DNNLConvolutions(layout: .blocked(block, ownKernels: false))
        try #require(winograd.channelBlock == block && direct.channelBlock == block)
        let conv = ConvSpec(
            convName: "conv", normName: "bn", name: "conv", inChannels: shape.inChannels, outChannels: shape.outChannels,
            kernel: 3, stride: 1, padding: 1
        )
        var random = SplitMix(seed: UInt64(shape.inChannels * 100 + shape.outChannels))
        let weights = (0..<(9 * shape.inChannels * shape.outChannels)).map { _ in Float(random.normal() * 0.2) }
        let bias = (0..<shape.outChannels).map { _ in Float(random.normal() * 0.1) }
        let storedIn = winograd.storedChannels(shape.inChannels), storedOut = winograd.storedChannels(shape.outChannels)
        let features = FeatureShape(batch: shape.batch, height: shape.height, width: shape.width, channels: shape.inChannels)
        let input = Self.blockedMap(features, block: block, random: &random)
        let shortcut = Self.blockedMap(
            FeatureShape(batch: shape.batch, height: shape.height, width: shape.width, channels: shape.outChannels), block: block,
            random: &random
        )
        for convolutions in [winograd, direct] {
            #expect(convolutions.add(
                conv, height: shape.height, width: shape.width, weights: weights, bias: bias, relu: shape.relu,
                accumulate: shape.accumulate, half: shape.half, readsImage: false, threads: 2, engine: convolutions === winograd ? engine : nil
            ))
        }
        #expect(winograd.engine(of: conv) == engine && direct.engine(of: conv) == .oneDNN)
        // Float32 weights transformed (36 per input-output pair of whole blocks in F(4×4) tiles, 16 in F(2×2) ones) when they
        // fit in 4 MiB, otherwise the 3×3 ones.
        let pairs = storedIn * storedOut
        let tile = DNNLConvolutions.winogradTile(height: shape.height, width: shape.width, half: shape.half)
        let transformedBytes = (tile + 2) * (tile + 2) * pairs * MemoryLayout<Float>.size
        let expectedBytes = shape.half ? 9 * pairs * 2
            : transformedBytes <= 4 << 20 ? transformedBytes : 9 * pairs * MemoryLayout<Float>.size
        #expect(winograd.weightBytes == expectedBytes)

        #expect(winograd.largestHalfLayer == 0)
        let (outputs, scale, worst) = Self.runOnEach(
            [winograd, direct], conv, input, features, shortcut: shortcut, accumulate: shape.accumulate
        )
        // F(4×4, 3×3) rounds more than a direct sum (its transforms scale values by up to 8 before the products are
        // combined again): about 1e-5 of the largest output with 168 input channels.
        #expect(worst <= 3e-5 * scale, "largest difference \(worst) of \(scale)")
        // Padded output channels stay zero (the next layer reads them as inputs).
        let padded = Self.paddedChannelValues(outputs[0], shape: features, outChannels: shape.outChannels, stored: storedOut, block: block)
        #expect(padded.allSatisfy { $0 == 0 })
        #endif
    }

    /// F(2×2, 3×3) tiles only for float32 weights on maps of at most 14 a side.
    @Test func tileSizeFollowsTheMapAndWeights() throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        let tile = DNNLConvolutions.winogradTile
        #expect(tile(14, 14, false) == 2)
        #expect(tile(7, 7, false) == 2)
        #expect(tile(15, 14, false) == 4)
        #expect(tile(14, 15, false) == 4)
        #expect(tile(56, 56, false) == 4)
        #expect(tile(7, 7, true) == 4)
        #endif
    }

    /// Small maps and strided layers stay on oneDNN, and so does everything blocked with `ownKernels: false`.
    @Test(arguments: [8, 16]) func whatStaysOnOneDNN(block: Int) throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        try #require(DNNLConvolutions.cpuRunsOwnKernels, "our kernels need AVX2, FMA and F16C")
        let convolutions = DNNLConvolutions(layout: .blocked(block))
        let conv = ConvSpec(convName: "c", normName: "b", name: "c", inChannels: 16, outChannels: 16, kernel: 3, stride: 1, padding: 1)
        #expect(convolutions.usesWinograd(conv, height: DNNLConvolutions.winogradMinimumSide, half: false))
        #expect(convolutions.usesWinograd(conv, height: 56, half: true))
        #expect(!convolutions.usesWinograd(conv, height: DNNLConvolutions.winogradMinimumSide - 1, half: false))
        var strided = conv
        strided.stride = 2
        #expect(!convolutions.usesWinograd(strided, height: 56, half: false))
        var pointwise = conv
        (pointwise.kernel, pointwise.padding) = (1, 0)
        #expect(!convolutions.usesWinograd(pointwise, height: 56, half: false))
        #expect(!DNNLConvolutions(layout: .blocked(block, ownKernels: false)).usesWinograd(conv, height: 56, half: false))
        #expect(!DNNLConvolutions(layout: .channelsLast).usesWinograd(conv, height: 56, half: false))
        #endif
    }

    /// Runs `conv`, added to each of `engines`, on `input` of `features`: into a copy of `shortcut` when `accumulate`,
    /// otherwise into NaN. Checks that each ran and wrote every value, and returns their outputs, the largest magnitude
    /// of the last one's, and the largest difference between the first two.
    static func runOnEach(
        _ engines: [DNNLConvolutions], _ conv: ConvSpec, _ input: [Float], _ features: FeatureShape, shortcut: [Float], accumulate: Bool
    ) -> (outputs: [[Float]], scale: Float, worst: Float) {
        var outputs: [[Float]] = []
        var scratch = [Float](repeating: 0, count: max(1, engines.map(\.largestHalfLayer).max() ?? 0))
        for convolutions in engines {
            var output = accumulate ? shortcut : [Float](repeating: .nan, count: shortcut.count)
            let ran = input.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    convolutions.run(
                        conv, source.baseAddress!, features, into: target.baseAddress!, scratch: &scratch, scratchCapacity: scratch.count,
                        threads: 2
                    )
                }
            }
            #expect(ran)
            outputs.append(output)
        }
        // Every output written (`max` would pass over a NaN left in one).
        #expect(outputs.allSatisfy { !$0.contains { $0.isNaN } })
        let scale = outputs.last?.map { abs($0) }.max() ?? 1
        let worst = zip(outputs[0], outputs[1]).map { abs($0 - $1) }.max() ?? .infinity
        #expect(scale > 0.1)
        return (outputs, scale, worst)
    }

    /// A random map of `shape` in the blocked order, zero in the channels that pad the last block.
    static func blockedMap(_ shape: FeatureShape, block: Int, random: inout SplitMix) -> [Float] {
        let stored = DNNLConvolutions.storedChannels(shape.channels, block: block)
        var map = [Float](repeating: 0, count: shape.batch * stored * shape.height * shape.width)
        for index in map.indices {
            let channel = (index / (shape.height * shape.width * block)) % (stored / block) * block + index % block
            if channel < shape.channels { map[index] = Float(random.normal()) }
        }
        return map
    }

    static func paddedChannelValues(_ map: [Float], shape: FeatureShape, outChannels: Int, stored: Int, block: Int) -> [Float] {
        map.indices.compactMap { index in
            let channel = (index / (shape.height * shape.width * block)) % (stored / block) * block + index % block
            return channel >= outChannels ? map[index] : nil
        }
    }
}
