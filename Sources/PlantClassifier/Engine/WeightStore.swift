import Foundation

/// All float32 weights of a network in one allocation, looked up by tensor name. Written once while
/// loading, read-only afterwards, which is what makes sharing it between threads safe.
final class WeightStore: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Float>
    private let offsets: [String: (offset: Int, count: Int)]
    /// Number of floats held.
    let count: Int

    /// Allocates room for `tensors` (name, element count), zeroed.
    init(tensors: [(name: String, count: Int)]) {
        var offsets: [String: (Int, Int)] = [:]
        var total = 0
        for tensor in tensors {
            offsets[tensor.name] = (total, tensor.count)
            // Keep every tensor 64-byte aligned for the GEMM kernels.
            total += (tensor.count + 15) / 16 * 16
        }
        self.offsets = offsets
        count = total
        base = .allocate(capacity: max(total, 1))
        base.initialize(repeating: 0, count: max(total, 1))
    }

    deinit { base.deallocate() }

    /// Where tensor `name` lives, for filling it during loading. `nil` if unknown.
    func mutableTensor(_ name: String) -> UnsafeMutableBufferPointer<Float>? {
        offsets[name].map { UnsafeMutableBufferPointer(start: base + $0.offset, count: $0.count) }
    }

    /// Tensor `name`; the caller has checked that it exists.
    func tensor(_ name: String) -> UnsafePointer<Float> {
        UnsafePointer(base + (offsets[name]?.offset ?? 0))
    }

    func contains(_ name: String) -> Bool { offsets[name] != nil }
}
