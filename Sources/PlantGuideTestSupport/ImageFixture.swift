import Foundation

/// Real, decodable images made in code, so tests can store photos without fixture files.
public enum ImageFixture {
    /// An RGB PNG of `width`×`height` with a pattern that differs per `seed`, optionally carrying a
    /// `tEXt` metadata chunk (e.g. a fake GPS position) that a metadata-stripping encoder must drop.
    /// The pixel data uses uncompressed deflate blocks, so no compression library is needed.
    public static func png(width: Int = 64, height: Int = 48, seed: UInt8 = 0, text: (key: String, value: String)? = nil) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                raw.append(UInt8(truncatingIfNeeded: x * 4 &+ Int(seed) * 37))
                raw.append(UInt8(truncatingIfNeeded: y * 5 &+ Int(seed) * 11))
                raw.append(UInt8(truncatingIfNeeded: (x ^ y) &+ Int(seed)))
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // 8-bit, truecolour, deflate, adaptive filters, no interlace
        png += chunk("IHDR", header)
        if let text { png += chunk("tEXt", Array(text.key.utf8) + [0] + Array(text.value.utf8)) }
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return Data(png)
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let last: UInt8 = offset + length >= data.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
