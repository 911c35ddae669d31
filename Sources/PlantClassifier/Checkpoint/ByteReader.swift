import Foundation

/// Bounds-checked little-endian reads from bytes that came from outside (zip headers, pickles,
/// model files): a truncated or lying file becomes an error, never a crash.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int
    /// Turns a bounds failure into the caller's error.
    let failure: @Sendable (String) -> ClassifierError

    init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0, failure: @escaping @Sendable (String) -> ClassifierError) {
        self.bytes = bytes
        self.position = position
        self.failure = failure
    }

    var remaining: Int { bytes.count - position }

    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw failure("unexpected end of data at byte \(position)") }
        position += count
    }

    mutating func byte() throws -> UInt8 {
        guard remaining >= 1 else { throw failure("unexpected end of data at byte \(position)") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw failure("unexpected end of data at byte \(position)") }
        var value: T = 0
        for offset in 0..<size { value |= T(truncatingIfNeeded: bytes[position + offset]) << (8 * offset) }
        position += size
        return value
    }

    mutating func slice(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw failure("a field runs past the end of the data") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// Reads a big-endian float64 (pickle's BINFLOAT).
    mutating func bigEndianDouble() throws -> Double {
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(try byte()) }
        return Double(bitPattern: bits)
    }
}
