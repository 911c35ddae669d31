import Foundation

/// Writes and reads NumPy `.npy` files (format version 1.0) of little-endian Float32 (`<f4`), C order.
public enum NumpyFile {
    /// The bytes of a `.npy` file holding `values` with `shape`.
    public static func data(_ values: [Float], shape: [Int]) -> Data {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shapeText), }"
        // Magic (6) + version (2) + header length (2) + header + newline is padded to a multiple of 64.
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let length = UInt16(header.utf8.count)
        data.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8)])
        data.append(contentsOf: Array(header.utf8))
        data.reserveCapacity(data.count + values.count * 4)
        for value in values {
            let bits = value.bitPattern.littleEndian
            withUnsafeBytes(of: bits) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Reads a `<f4` C-order `.npy` file; returns `nil` for anything else.
    public static func read(_ data: Data) -> (values: [Float], shape: [Int])? {
        let bytes = [UInt8](data)
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8), bytes[6] == 1 else { return nil }
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        guard bytes.count >= 10 + headerLength else { return nil }
        let header = String(decoding: bytes[10..<10 + headerLength], as: UTF8.self)
        guard header.contains("'descr': '<f4'"), header.contains("'fortran_order': False"),
              let open = header.range(of: "'shape': ("), let close = header[open.upperBound...].firstIndex(of: ")")
        else { return nil }
        let shape = header[open.upperBound..<close].split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        let count = shape.reduce(1, *)
        let body = bytes[(10 + headerLength)...]
        guard body.count == count * 4 else { return nil }
        var values = [Float](repeating: 0, count: count)
        var index = body.startIndex
        for i in 0..<count {
            let bits = UInt32(body[index]) | UInt32(body[index + 1]) << 8 | UInt32(body[index + 2]) << 16 | UInt32(body[index + 3]) << 24
            values[i] = Float(bitPattern: bits)
            index += 4
        }
        return (values, shape)
    }
}
