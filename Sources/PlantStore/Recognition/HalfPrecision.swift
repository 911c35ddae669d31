import CPlantKernels
import Foundation

/// Embeddings are stored as IEEE float16 (little-endian), half the size of float32 and precise enough for cosine
/// similarity (a relative error of at most 2⁻¹¹ per number).
package enum HalfPrecision {
    /// `values` as float16 bytes, little-endian.
    package static func bytes(of values: [Float]) -> Data {
        var halves = [UInt16](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { source in
            halves.withUnsafeMutableBufferPointer { destination in
                guard let from = source.baseAddress, let to = destination.baseAddress else { return }
                pg_float_to_half(from, to, values.count)
            }
        }
        return halves.withUnsafeBytes { Data($0) }.littleEndianHalves
    }

    /// The float32 values of float16 `bytes` (little-endian); `nil` when the byte count is odd.
    package static func floats(from bytes: Data) -> [Float]? {
        guard bytes.count % 2 == 0 else { return nil }
        let count = bytes.count / 2
        var halves = [UInt16](repeating: 0, count: count)
        halves.withUnsafeMutableBytes { destination in _ = bytes.littleEndianHalves.copyBytes(to: destination) }
        var values = [Float](repeating: 0, count: count)
        halves.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { destination in
                guard let from = source.baseAddress, let to = destination.baseAddress else { return }
                pg_half_to_float(from, to, count)
            }
        }
        return values
    }
}

extension Data {
    /// These bytes, read as native-endian 16-bit values, rewritten little-endian (a no-op on little-endian machines).
    fileprivate var littleEndianHalves: Data {
        guard UInt16(littleEndian: 1) != 1 else { return self }
        var swapped = self
        for index in Swift.stride(from: 0, to: count - 1, by: 2) { swapped.swapAt(index, index + 1) }
        return swapped
    }
}
