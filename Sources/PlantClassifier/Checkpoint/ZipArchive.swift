import CPlantZlib
import Foundation

/// Reads the zip archives written by `torch.save`: stored or deflated entries, zip64 when large.
/// Only the central directory is trusted for sizes; every offset is checked against the file.
struct ZipArchive {
    struct Entry {
        var name: String
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localHeaderOffset: Int
    }

    let data: Data
    let entries: [Entry]

    init(data: Data) throws {
        self.data = data
        entries = try data.withUnsafeBytes { try Self.readDirectory($0) }
    }

    func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The uncompressed bytes of `entry`, checked against its CRC-32.
    func contents(of entry: Entry) throws -> Data {
        try data.withUnsafeBytes { bytes -> Data in
            var reader = ByteReader(bytes, at: entry.localHeaderOffset, failure: { .corruptArchive($0) })
            guard try reader.integer(UInt32.self) == 0x0403_4b50 else {
                throw ClassifierError.corruptArchive("bad local header for \(entry.name)")
            }
            try reader.skip(22)
            let nameLength = Int(try reader.integer(UInt16.self))
            let extraLength = Int(try reader.integer(UInt16.self))
            try reader.skip(nameLength + extraLength)
            let raw = try reader.slice(entry.compressedSize)
            let output: Data
            switch entry.method {
            case 0:
                guard entry.compressedSize == entry.size else {
                    throw ClassifierError.corruptArchive("stored entry \(entry.name) has inconsistent sizes")
                }
                output = Data(raw)
            case 8:
                output = try Self.inflate(raw, expectedSize: entry.size, name: entry.name)
            default:
                throw ClassifierError.corruptArchive("entry \(entry.name) uses compression method \(entry.method)")
            }
            let crc = output.withUnsafeBytes { buffer -> UInt32 in
                var value: uLong = crc32(0, nil, 0)
                var offset = 0
                while offset < buffer.count {
                    let chunk = min(buffer.count - offset, 1 << 30)
                    value = crc32(value, buffer.baseAddress?.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(chunk))
                    offset += chunk
                }
                return UInt32(truncatingIfNeeded: value)
            }
            guard crc == entry.crc else { throw ClassifierError.corruptArchive("CRC mismatch in \(entry.name)") }
            return output
        }
    }

    private static func readDirectory(_ bytes: UnsafeRawBufferPointer) throws -> [Entry] {
        guard bytes.count >= 22 else { throw ClassifierError.notACheckpoint("the file is too short to be a zip archive") }
        // The end-of-central-directory record sits within the last 64 KiB + 22 bytes.
        var eocd = -1
        var position = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 65_535)
        while position >= lowest {
            if bytes[position] == 0x50, bytes[position + 1] == 0x4b, bytes[position + 2] == 0x05, bytes[position + 3] == 0x06 {
                eocd = position
                break
            }
            position -= 1
        }
        guard eocd >= 0 else {
            let magic = bytes.count >= 2 && bytes[0] == 0x80 ? " (it looks like a legacy, pre-1.6 PyTorch pickle file)" : ""
            throw ClassifierError.notACheckpoint("no zip directory found\(magic)")
        }
        var reader = ByteReader(bytes, at: eocd + 10, failure: { .corruptArchive($0) })
        var count = Int(try reader.integer(UInt16.self))
        var directorySize = Int(try reader.integer(UInt32.self))
        var directoryOffset = Int(try reader.integer(UInt32.self))
        if count == 0xFFFF || directoryOffset == 0xFFFF_FFFF || directorySize == 0xFFFF_FFFF {
            // Zip64: the locator just before the record points at the zip64 record.
            var locator = ByteReader(bytes, at: eocd - 20, failure: { .corruptArchive($0) })
            guard eocd >= 20, try locator.integer(UInt32.self) == 0x0706_4b50 else {
                throw ClassifierError.corruptArchive("zip64 locator missing")
            }
            try locator.skip(4)
            var record = ByteReader(bytes, at: Int(clamping: try locator.integer(UInt64.self)), failure: { .corruptArchive($0) })
            guard try record.integer(UInt32.self) == 0x0606_4b50 else { throw ClassifierError.corruptArchive("zip64 record missing") }
            try record.skip(28)
            count = Int(clamping: try record.integer(UInt64.self))
            directorySize = Int(clamping: try record.integer(UInt64.self))
            directoryOffset = Int(clamping: try record.integer(UInt64.self))
        }
        guard directoryOffset <= bytes.count, directorySize <= bytes.count - directoryOffset else {
            throw ClassifierError.corruptArchive("central directory lies outside the file")
        }
        var directory = ByteReader(bytes, at: directoryOffset, failure: { .corruptArchive($0) })
        var entries: [Entry] = []
        for _ in 0..<count {
            guard try directory.integer(UInt32.self) == 0x0201_4b50 else {
                throw ClassifierError.corruptArchive("bad central directory entry")
            }
            try directory.skip(6)
            let method = try directory.integer(UInt16.self)
            try directory.skip(4)
            let crc = try directory.integer(UInt32.self)
            var compressed = Int(try directory.integer(UInt32.self))
            var size = Int(try directory.integer(UInt32.self))
            let nameLength = Int(try directory.integer(UInt16.self))
            let extraLength = Int(try directory.integer(UInt16.self))
            let commentLength = Int(try directory.integer(UInt16.self))
            try directory.skip(8)
            var offset = Int(try directory.integer(UInt32.self))
            let name = String(decoding: try directory.slice(nameLength), as: UTF8.self)
            var extra = ByteReader(try directory.slice(extraLength), failure: { .corruptArchive($0) })
            while extra.remaining >= 4 {
                let id = try extra.integer(UInt16.self)
                let length = Int(try extra.integer(UInt16.self))
                var field = ByteReader(try extra.slice(length), failure: { .corruptArchive($0) })
                guard id == 0x0001 else { continue }
                if size == 0xFFFF_FFFF { size = Int(clamping: try field.integer(UInt64.self)) }
                if compressed == 0xFFFF_FFFF { compressed = Int(clamping: try field.integer(UInt64.self)) }
                if offset == 0xFFFF_FFFF { offset = Int(clamping: try field.integer(UInt64.self)) }
            }
            try directory.skip(commentLength)
            guard offset < bytes.count, compressed <= bytes.count else {
                throw ClassifierError.corruptArchive("entry \(name) lies outside the file")
            }
            entries.append(Entry(name: name, method: method, crc: crc, compressedSize: compressed, size: size, localHeaderOffset: offset))
        }
        return entries
    }

    private static func inflate(_ input: UnsafeRawBufferPointer, expectedSize: Int, name: String) throws -> Data {
        var output = Data(count: expectedSize)
        var stream = z_stream()
        // Raw deflate (negative window bits): zip entries carry no zlib header.
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ClassifierError.corruptArchive("cannot start inflating \(name)")
        }
        defer { inflateEnd(&stream) }
        let status = output.withUnsafeMutableBytes { out -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(out.count)
            return CPlantZlib.inflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == expectedSize else {
            throw ClassifierError.corruptArchive("entry \(name) does not inflate to its declared size")
        }
        return output
    }
}
