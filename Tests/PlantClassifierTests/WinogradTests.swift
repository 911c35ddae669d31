import Foundation
import Testing
@testable import PlantClassifier

@Suite struct WinogradTests {
    /// Winograd F(2×2, 3×3) against a direct 3×3 convolution, including odd sizes where the last tiles
    /// hang over the edge, with bias, shortcut and ReLU.
    @Test(arguments: [(1, 8, 8, 4, 3), (2, 9, 7, 5, 6), (1, 14, 14, 16, 8), (1, 3, 5, 2, 2)])
    func matchesDirectConvolution(batch: Int, height: Int, width: Int, cin: Int, cout: Int) {
        var generator = SplitMix(seed: UInt64(height * 131 + width * 7 + cin))
        let shape = FeatureShape(batch: batch, height: height, width: width, channels: cin)
        let outShape = FeatureShape(batch: batch, height: height, width: width, channels: cout)
        let input = (0..<shape.count).map { _ in generator.nextFloat() }
        let weights = (0..<(9 * cin * cout)).map { _ in generator.nextFloat() }
        let bias = (0..<cout).map { _ in generator.nextFloat() }
        let residual = (0..<outShape.count).map { _ in generator.nextFloat() }

        var expected = [Float](repeating: 0, count: outShape.count)
        for n in 0..<batch {
            for y in 0..<height {
                for x in 0..<width {
                    for co in 0..<cout {
                        var sum = Double(bias[co])
                        for ky in 0..<3 {
                            for kx in 0..<3 {
                                let iy = y + ky - 1, ix = x + kx - 1
                                guard iy >= 0, iy < height, ix >= 0, ix < width else { continue }
                                for ci in 0..<cin {
                                    sum += Double(input[((n * height + iy) * width + ix) * cin + ci])
                                        * Double(weights[((ky * 3 + kx) * cin + ci) * cout + co])
                                }
                            }
                        }
                        let index = ((n * height + y) * width + x) * cout + co
                        expected[index] = max(Float(sum) + residual[index], 0)
                    }
                }
            }
        }

        let transformed = Winograd.transformWeights(weights, inChannels: cin, outChannels: cout)
        let tiles = Winograd.tileCount(outShape)
        var columns = [Float](repeating: .nan, count: 16 * tiles * cin)
        var products = [Float](repeating: .nan, count: 16 * tiles * cout)
        var output = [Float](repeating: .nan, count: outShape.count)
        let zeros = [Float](repeating: 0, count: max(cin, cout))
        input.withUnsafeBufferPointer { inputs in
            zeros.withUnsafeBufferPointer { zero in
                columns.withUnsafeMutableBufferPointer { cols in
                    Winograd.transformInput(inputs.baseAddress!, shape, into: cols.baseAddress!, zeros: zero.baseAddress!, threads: 2)
                }
                transformed.withUnsafeBufferPointer { u in
                    columns.withUnsafeBufferPointer { cols in
                        products.withUnsafeMutableBufferPointer { m in
                            for position in 0..<16 {
                                BLAS.gemm(
                                    m: tiles, n: cout, k: cin, a: cols.baseAddress! + position * tiles * cin,
                                    b: u.baseAddress! + position * cin * cout, c: m.baseAddress! + position * tiles * cout, beta: 0
                                )
                            }
                        }
                    }
                }
                products.withUnsafeBufferPointer { m in
                    bias.withUnsafeBufferPointer { b in
                        residual.withUnsafeBufferPointer { r in
                            output.withUnsafeMutableBufferPointer { out in
                                Winograd.transformOutput(
                                    m.baseAddress!, outShape, into: out.baseAddress!, bias: b.baseAddress!, residual: r.baseAddress!,
                                    relu: true, zeros: zero.baseAddress!, threads: 2
                                )
                            }
                        }
                    }
                }
            }
        }
        let worst = zip(output, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 1e-4, "largest difference \(worst)")
    }

    @Test func onlyLargeStrideOneThreeByThreeConvsQualify() {
        let spec = NetworkSpec(architecture: .resnet50, classes: 10)
        let names = spec.winogradConvs(inputSize: 224)
        #expect(names.contains("layer1.0.conv2"))
        #expect(names.contains("layer3.5.conv2"))
        #expect(!names.contains("layer2.0.conv2"))  // stride 2
        #expect(!names.contains("layer4.1.conv2"))  // 7×7
        #expect(!names.contains("layer1.0.conv1"))  // 1×1
        #expect(names.count == 3 + 3 + 5)
    }
}

/// A small deterministic generator for test data.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in -1…1.
    mutating func nextFloat() -> Float { Float(next() >> 40) / Float(1 << 23) - 1 }
}

/// oneDNN gets plain 3×3 weights back from the Winograd-transformed ones stored in model files.
@Suite struct WinogradInverseTests {
    @Test(arguments: [(1, 1), (3, 5), (8, 16)])
    func untransformingRecoversTheWeights(inChannels: Int, outChannels: Int) {
        var generator = SystemRandomNumberGenerator()
        let weights = (0..<(9 * inChannels * outChannels)).map { _ in Float.random(in: -1...1, using: &generator) }
        let transformed = Winograd.transformWeights(weights, inChannels: inChannels, outChannels: outChannels)
        var recovered = [Float](repeating: .nan, count: weights.count)
        transformed.withUnsafeBufferPointer { source in
            recovered.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                DNNLConvolutions.untransformWinograd(from, planes: inChannels * outChannels, into: to)
            }
        }
        let worst = zip(weights, recovered).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 1e-5, "largest weight difference \(worst)")
    }
}
