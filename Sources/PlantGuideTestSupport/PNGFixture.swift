import Foundation

/// Makes small, valid PNG files in memory (uncompressed deflate), so tests can feed real photos to the image
/// pipeline without committed binaries.
public enum PNGFixture {
    /// An RGB picture of `width` × `height`: a gradient under a pattern of 8-pixel blocks chosen by `seed`, so
    /// different seeds give files with different contents and different perceptual hashes.
    public static func gradient(width: Int = 64, height: Int = 48, seed: UInt8 = 0) -> Data {
        var raw = Data()
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                var block = UInt32(x / 8) &* 73_856_093 ^ UInt32(y / 8) &* 19_349_663 ^ UInt32(seed) &* 83_492_791
                block ^= block >> 13
                block = block &* 0x5BD1_E995
                block ^= block >> 15
                let shade = Int(block & 0xFF)
                raw.append(UInt8(truncatingIfNeeded: (x * 255 / max(width - 1, 1) + shade) / 2))
                raw.append(UInt8(truncatingIfNeeded: (y * 255 / max(height - 1, 1) + shade) / 2))
                raw.append(UInt8(truncatingIfNeeded: shade))
            }
        }
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, deflate, no filter set, no interlace
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", zlibStored(raw))
        png.appendChunk("IEND", Data())
        return png
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    private static func zlibStored(_ data: Data) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isLast = offset + length >= data.count
            out.append(isLast ? 1 : 0)
            out.append(UInt8(length & 0xFF))
            out.append(UInt8(length >> 8))
            out.append(UInt8(~length & 0xFF))
            out.append(UInt8((~length >> 8) & 0xFF))
            out.append(data.subdata(in: offset..<(offset + length)))
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out.appendBigEndian(b << 16 | a)
        return out
    }

    static func crc32(_ bytes: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

private extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendChunk(_ type: String, _ content: Data) {
        appendBigEndian(UInt32(content.count))
        let typed = Data(type.utf8) + content
        append(typed)
        appendBigEndian(PNGFixture.crc32(typed))
    }
}
