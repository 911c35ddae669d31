/// EXIF orientation: how the stored pixels must be turned to be upright.
enum Orientation {
    /// Returns the upright image for stored `pixels` of `width`×`height` and EXIF `orientation` 1…8.
    /// Values outside 1…8 are treated as 1, as cameras and viewers do.
    static func apply(_ orientation: Int, width: Int, height: Int, pixels: [UInt8]) -> RGBImage {
        guard (2...8).contains(orientation) else { return RGBImage(unchecked: width, height, pixels) }
        // Each upright pixel (x', y') reads stored pixel `start + x' * stepX + y' * stepY` (in pixels).
        let last = height - 1, right = width - 1
        let (start, stepX, stepY): (Int, Int, Int) = switch orientation {
        case 2: (right, -1, width)
        case 3: (last * width + right, -1, -width)
        case 4: (last * width, 1, -width)
        case 5: (0, width, 1)
        case 6: (last * width, -width, 1)
        case 7: (last * width + right, -width, -1)
        default: (right, width, -1)  // 8
        }
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width
        let outHeight = swaps ? width : height
        let output = [UInt8](unsafeUninitializedCapacity: pixels.count) { buffer, count in
            pixels.withUnsafeBufferPointer { source in
                var out = 0
                for y in 0..<outHeight {
                    var index = start + y * stepY
                    for _ in 0..<outWidth {
                        let s = index * 3
                        buffer[out] = source[s]
                        buffer[out + 1] = source[s + 1]
                        buffer[out + 2] = source[s + 2]
                        out += 3
                        index += stepX
                    }
                }
            }
            count = pixels.count
        }
        return RGBImage(unchecked: outWidth, outHeight, output)
    }
}
