/// Finds the EXIF orientation tag (0x0112) in a JPEG's APP1 segment or in a bare TIFF/EXIF block.
/// Every offset is bounds-checked: the bytes come from strangers.
enum ExifOrientationReader {
    /// The orientation (1…8) stored in a JPEG file, or 1 when there is none or it is unreadable.
    static func orientation(inJPEG bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 2  // after SOI
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return 1 }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return 1 }  // image data starts: no EXIF before it
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return 1 }
            let body = offset + 4
            if marker == 0xE1, length >= 8,
               bytes[body] == 0x45, bytes[body + 1] == 0x78, bytes[body + 2] == 0x69, bytes[body + 3] == 0x66,
               bytes[body + 4] == 0, bytes[body + 5] == 0 {
                let tiff = UnsafeRawBufferPointer(rebasing: bytes[(body + 6)..<(offset + 2 + length)])
                return orientation(inTIFF: tiff)
            }
            offset += 2 + length
        }
        return 1
    }

    /// The orientation stored in an extended WebP file's EXIF chunk, or 1.
    static func orientation(inWebP bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 12  // after "RIFF", size, "WEBP"
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let body = offset + 8
            guard size <= bytes.count - body else { return 1 }
            if bytes[offset] == 0x45, bytes[offset + 1] == 0x58, bytes[offset + 2] == 0x49, bytes[offset + 3] == 0x46 {  // "EXIF"
                var start = body
                // Some writers keep the JPEG-style "Exif\0\0" prefix.
                if size >= 6, bytes[body] == 0x45, bytes[body + 1] == 0x78, bytes[body + 4] == 0, bytes[body + 5] == 0 { start += 6 }
                return orientation(inTIFF: UnsafeRawBufferPointer(rebasing: bytes[start..<(body + size)]))
            }
            offset = body + size + (size & 1)
        }
        return 1
    }

    /// The orientation in a TIFF-structured EXIF block ("II*\0" or "MM\0*"), or 1.
    static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> Int {
        guard tiff.count >= 8 else { return 1 }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return 1
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return 1 }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return 1 }
            guard tag == 0x0112 else { continue }
            guard u16(at + 2) == 3, let value = u16(at + 8), (1...8).contains(value) else { return 1 }
            return value
        }
        return 1
    }
}
