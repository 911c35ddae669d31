import CPlantKernels
import Foundation

/// All weights of a network, looked up by tensor name. Convolution and linear weights from a float16
/// model file stay float16 in memory (half the resident size) and are widened layer by layer into
/// scratch memory right before their GEMM; everything else is float32. Written once while loading,
/// read-only afterwards, which is what makes sharing it between threads safe.
final class WeightStore: @unchecked Sendable {
    private struct Entry {
        var offset: Int
        var count: Int
        var isHalf: Bool
    }

    private let floats: UnsafeMutablePointer<Float>
    private let halves: UnsafeMutablePointer<UInt16>
    private let entries: [String: Entry]
    /// Elements of the largest float16 tensor: the scratch a forward pass needs to widen it.
    let largestHalfTensor: Int

    /// Allocates room for `tensors` (name, element count, kept as float16).
    init(tensors: [(name: String, count: Int, half: Bool)]) {
        var entries: [String: Entry] = [:]
        var floatTotal = 0, halfTotal = 0, largest = 0
        for tensor in tensors {
            // Keep every tensor 64-byte aligned for the GEMM kernels.
            if tensor.half {
                entries[tensor.name] = Entry(offset: halfTotal, count: tensor.count, isHalf: true)
                halfTotal += (tensor.count + 31) / 32 * 32
                largest = max(largest, tensor.count)
            } else {
                entries[tensor.name] = Entry(offset: floatTotal, count: tensor.count, isHalf: false)
                floatTotal += (tensor.count + 15) / 16 * 16
            }
        }
        self.entries = entries
        largestHalfTensor = largest
        floats = .allocate(capacity: max(floatTotal, 1))
        halves = .allocate(capacity: max(halfTotal, 1))
    }

    deinit {
        floats.deallocate()
        halves.deallocate()
    }

    /// Where float32 tensor `name` lives, for filling it during loading.
    func mutableFloats(_ name: String) -> UnsafeMutableBufferPointer<Float>? {
        guard let entry = entries[name], !entry.isHalf else { return nil }
        return UnsafeMutableBufferPointer(start: floats + entry.offset, count: entry.count)
    }

    /// Where float16 tensor `name` lives, for filling it during loading.
    func mutableHalves(_ name: String) -> UnsafeMutableBufferPointer<UInt16>? {
        guard let entry = entries[name], entry.isHalf else { return nil }
        return UnsafeMutableBufferPointer(start: halves + entry.offset, count: entry.count)
    }

    /// Tensor `name` as float32: in place, or widened into `scratch` (room for ``largestHalfTensor``).
    func floats(_ name: String, scratch: UnsafeMutablePointer<Float>, threads: Int) -> UnsafePointer<Float> {
        guard let entry = entries[name] else { return UnsafePointer(floats) }
        guard entry.isHalf else { return UnsafePointer(floats + entry.offset) }
        let source = halves + entry.offset
        parallelRanges(entry.count, threads: threads, minimumPerThread: 262_144) { range in
            pg_half_to_float(source + range.lowerBound, scratch + range.lowerBound, range.count)
        }
        return UnsafePointer(scratch)
    }
}
