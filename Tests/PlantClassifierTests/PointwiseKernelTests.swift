import Foundation
import Testing
@_spi(Benchmark) @testable import PlantClassifier

/// The pointwise kernels for 1×1 stride-1 layers with float16 weights against oneDNN's kernels on the same blocked maps
/// and the same float16 weights: maps whose pixels are not whole groups of 6 or blocks of 48, channels that are not whole
/// blocks, a last panel of 8 output channels, a batch of two, the residual add and ReLU.
@Suite struct PointwiseKernelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var batch: Int, height: Int, width: Int, inChannels: Int, outChannels: Int
        var relu: Bool, accumulate: Bool
        var testDescription: String {
            "\(batch)×\(height)×\(width), \(inChannels)→\(outChannels)\(relu ? ", ReLU" : "")\(accumulate ? ", residual" : "")"
        }
    }

    static let cases = [
        Case(batch: 1, height: 14, width: 14, inChannels: 64, outChannels: 32, relu: true, accumulate: false),
        Case(batch: 2, height: 7, width: 7, inChannels: 40, outChannels: 24, relu: true, accumulate: true),
        Case(batch: 1, height: 13, width: 11, inChannels: 5, outChannels: 13, relu: false, accumulate: false),
        Case(batch: 3, height: 2, width: 3, inChannels: 24, outChannels: 40, relu: false, accumulate: true),
        Case(batch: 1, height: 4, width: 4, inChannels: 272, outChannels: 56, relu: true, accumulate: true),
    ]

    /// Each case in both channel blocks, whichever this CPU would choose.
    @Test(arguments: cases, [8, 16])
    func matchesOneDNN(_ shape: Case, block: Int) throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        try #require(DNNLConvolutions.cpuRunsOwnKernels, "our kernels need AVX2, FMA and F16C")
        let own = DNNLConvolutions(layout: .blocked(block)), onednn = DNNLConvolutions(layout: .blocked(block, ownKernels: false))
        try #require(own.channelBlock == block && onednn.channelBlock == block)
        let conv = ConvSpec(
            convName: "conv", normName: "bn", name: "conv", inChannels: shape.inChannels, outChannels: shape.outChannels,
            kernel: 1, stride: 1, padding: 0
        )
        try #require(own.usesPointwise(conv, height: shape.height, half: true))
        var random = SplitMix(seed: UInt64(shape.inChannels * 100 + shape.outChannels))
        let weights = (0..<(shape.inChannels * shape.outChannels)).map { _ in Float(random.normal() * 0.2) }
        let bias = (0..<shape.outChannels).map { _ in Float(random.normal() * 0.1) }
        let features = FeatureShape(batch: shape.batch, height: shape.height, width: shape.width, channels: shape.inChannels)
        let input = WinogradKernelTests.blockedMap(features, block: block, random: &random)
        let shortcut = WinogradKernelTests.blockedMap(
            FeatureShape(batch: shape.batch, height: shape.height, width: shape.width, channels: shape.outChannels), block: block,
            random: &random
        )
        for convolutions in [own, onednn] {
            #expect(convolutions.add(
                conv, height: shape.height, width: shape.width, weights: weights, bias: bias, relu: shape.relu,
                accumulate: shape.accumulate, half: true, readsImage: false, threads: 2
            ))
        }
        // Both keep the weights as float16; only oneDNN's need room to be widened into before each run.
        let storedIn = own.storedChannels(shape.inChannels), storedOut = own.storedChannels(shape.outChannels)
        #expect(own.weightBytes == storedIn * storedOut * 2)
        #expect(own.largestHalfLayer == 0)
        #expect(onednn.largestHalfLayer >= shape.inChannels * shape.outChannels)

        let (outputs, scale, worst) = WinogradKernelTests.runOnEach(
            [own, onednn], conv, input, features, shortcut: shortcut, accumulate: shape.accumulate
        )
        // The same products summed in another order.
        #expect(worst <= 2e-6 * scale * Float(shape.inChannels).squareRoot(), "largest difference \(worst) of \(scale)")
        // Padded output channels stay zero (the next layer reads them as inputs).
        let padded = WinogradKernelTests.paddedChannelValues(
            outputs[0], shape: features, outChannels: shape.outChannels, stored: storedOut, block: block
        )
        #expect(padded.allSatisfy { $0 == 0 })
        #endif
    }

    /// Only 1×1 stride-1 layers with float16 weights on maps of at most ``DNNLConvolutions/pointwiseMaximumSide`` rows,
    /// and nothing blocked with `ownKernels: false`.
    @Test(arguments: [8, 16]) func whatStaysOnOneDNN(block: Int) throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        try #require(DNNLConvolutions.cpuRunsOwnKernels, "our kernels need AVX2, FMA and F16C")
        let convolutions = DNNLConvolutions(layout: .blocked(block))
        let side = DNNLConvolutions.pointwiseMaximumSide
        let conv = ConvSpec(convName: "c", normName: "b", name: "c", inChannels: 64, outChannels: 256, kernel: 1, stride: 1, padding: 0)
        #expect(convolutions.usesPointwise(conv, height: side, half: true))
        #expect(convolutions.usesPointwise(conv, height: 1, half: true))
        #expect(convolutions.usesOwnKernel(conv, height: side, half: true))
        #expect(!convolutions.usesPointwise(conv, height: side + 1, half: true))
        #expect(!convolutions.usesPointwise(conv, height: side, half: false))
        var strided = conv
        strided.stride = 2
        #expect(!convolutions.usesPointwise(strided, height: side, half: true))
        var spatial = conv
        (spatial.kernel, spatial.padding) = (3, 1)
        #expect(!convolutions.usesPointwise(spatial, height: side, half: true))
        #expect(!DNNLConvolutions(layout: .blocked(block, ownKernels: false)).usesPointwise(conv, height: side, half: true))
        #expect(!DNNLConvolutions(layout: .channelsLast).usesPointwise(conv, height: side, half: true))
        #endif
    }
}
