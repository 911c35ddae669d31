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
