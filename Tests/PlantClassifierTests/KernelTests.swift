import CPlantKernels
import Foundation
import Testing
@testable import PlantClassifier

@Suite struct KernelTests {
    /// Every float16 bit pattern widens exactly as Swift's own `Float16` does (NaNs stay NaN).
    @Test func halfToFloatIsExactForAllPatterns() {
        let patterns = (0...UInt16.max).map { $0 }
        var widened = [Float](repeating: 0, count: patterns.count)
        patterns.withUnsafeBufferPointer { source in
            widened.withUnsafeMutableBufferPointer { pg_half_to_float(source.baseAddress!, $0.baseAddress!, patterns.count) }
        }
        var mismatches = 0
        for (pattern, value) in zip(patterns, widened) {
            let expected = Float(Float16(bitPattern: pattern))
            if expected.isNaN ? !value.isNaN : expected.bitPattern != value.bitPattern { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func parallelRangesCoverEveryIndexOnce() {
        let counts = Counter(size: 1_000_003)
        parallelRanges(1_000_003, threads: 4, minimumPerThread: 1000) { range in
            for index in range { counts.increment(index) }
        }
        #expect(counts.all { $0 == 1 })
    }

    /// The stem's max pooling and the final average pooling match a plain loop over each window, at the edges of odd
    /// and even maps, for two images, with the rows split between threads.
    @Test(arguments: [(batch: 2, height: 7, width: 9, channels: 5), (batch: 1, height: 112, width: 112, channels: 64), (batch: 2, height: 1, width: 2, channels: 3)])
    func poolingMatchesAPlainLoop(batch: Int, height: Int, width: Int, channels: Int) {
        let shape = FeatureShape(batch: batch, height: height, width: width, channels: channels)
        var generator = SystemRandomNumberGenerator()
        let input = (0..<(batch * height * width * channels)).map { _ in Float.random(in: -3...3, using: &generator) }
        let outHeight = (height - 1) / 2 + 1, outWidth = (width - 1) / 2 + 1
        var pooled = [Float](repeating: .nan, count: batch * outHeight * outWidth * channels)
        var averaged = [Float](repeating: .nan, count: batch * channels)
        input.withUnsafeBufferPointer { source in
            pooled.withUnsafeMutableBufferPointer {
                Kernels.maxPool(source.baseAddress!, shape, into: $0.baseAddress!, outHeight: outHeight, outWidth: outWidth, threads: 3)
            }
            averaged.withUnsafeMutableBufferPointer { Kernels.globalAveragePool(source.baseAddress!, shape, into: $0.baseAddress!) }
        }
        func at(_ n: Int, _ y: Int, _ x: Int, _ c: Int) -> Float { input[((n * height + y) * width + x) * channels + c] }
        var maxMismatches = 0, meanMismatches = 0
        for n in 0..<batch {
            for c in 0..<channels {
                for oy in 0..<outHeight {
                    for ox in 0..<outWidth {
                        var expected = -Float.infinity
                        for y in (oy * 2 - 1)...(oy * 2 + 1) where (0..<height).contains(y) {
                            for x in (ox * 2 - 1)...(ox * 2 + 1) where (0..<width).contains(x) { expected = max(expected, at(n, y, x, c)) }
                        }
                        if pooled[((n * outHeight + oy) * outWidth + ox) * channels + c] != expected { maxMismatches += 1 }
                    }
                }
                var sum: Float = 0
                for y in 0..<height { for x in 0..<width { sum += at(n, y, x, c) } }
                if abs(averaged[n * channels + c] - sum / Float(height * width)) > 1e-5 { meanMismatches += 1 }
            }
        }
        #expect(maxMismatches == 0)
        #expect(meanMismatches == 0)
    }
}

/// Disjoint slots written from several threads; read after all are done.
private final class Counter: @unchecked Sendable {
    private let values: UnsafeMutableBufferPointer<Int>
    init(size: Int) { values = .allocate(capacity: size); values.initialize(repeating: 0) }
    deinit { values.deallocate() }
    func increment(_ index: Int) { values[index] += 1 }
    func all(_ predicate: (Int) -> Bool) -> Bool { values.allSatisfy(predicate) }
}

@Suite struct ParallelGemmTests {
    /// Pieces along rows (tall products) and along columns (short ones) give the single call's result.
    @Test(arguments: [(3136, 64, 576), (49, 512, 4608), (20, 1081, 2048), (7, 9, 5)])
    func matchesOneCall(m: Int, n: Int, k: Int) {
        var generator = SplitMix(seed: UInt64(m * 7 + n))
        let a = (0..<(m * k)).map { _ in generator.nextFloat() }
        let b = (0..<(k * n)).map { _ in generator.nextFloat() }
        var single = [Float](repeating: 0, count: m * n)
        var pieces = [Float](repeating: .nan, count: m * n)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                single.withUnsafeMutableBufferPointer {
                    BLAS.gemm(m: m, n: n, k: k, a: a.baseAddress!, b: b.baseAddress!, c: $0.baseAddress!, beta: 0)
                }
                pieces.withUnsafeMutableBufferPointer {
                    BLAS.parallelGemm(m: m, n: n, k: k, a: a.baseAddress!, b: b.baseAddress!, c: $0.baseAddress!, beta: 0, threads: 4)
                }
            }
        }
        let worst = zip(pieces, single).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 1e-3, "largest difference \(worst)")
    }
}
