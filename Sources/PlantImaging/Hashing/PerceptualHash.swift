/// A 64-bit difference hash (dHash) of how an image looks: similar photos of the same plant get hashes
/// a few bits apart, while unrelated photos differ in about half of the bits.
public enum PerceptualHash {
    /// Shrinks the upright image to 9×8 gray (antialiased) and sets one bit per horizontally adjacent
    /// pair, row by row from the top-left: 1 when the left pixel is brighter than the right one.
    public static func dHash(_ image: RGBImage) -> UInt64 {
        let gray = luma(image)
        let small = Resampler.resize(gray, width: image.width, height: image.height, channels: 1, to: 9, 8)
        var hash: UInt64 = 0
        for y in 0..<8 {
            for x in 0..<8 {
                hash <<= 1
                if small[y * 9 + x] > small[y * 9 + x + 1] { hash |= 1 }
            }
        }
        return hash
    }

    /// Number of differing bits (Hamming distance) between two hashes: 0 for the same picture, up to
    /// about 10 for re-takes of one scene.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int {
        (a ^ b).nonzeroBitCount
    }

    /// ITU-R 601 luma, as Pillow's `convert("L")`.
    static func luma(_ image: RGBImage) -> [UInt8] {
        let count = image.width * image.height
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            image.pixels.withUnsafeBufferPointer { rgb in
                for i in 0..<count {
                    let sum = UInt32(rgb[i * 3]) * 19595 + UInt32(rgb[i * 3 + 1]) * 38470 + UInt32(rgb[i * 3 + 2]) * 7471
                    out[i] = UInt8((sum + 0x8000) >> 16)
                }
            }
            initialized = count
        }
    }
}
