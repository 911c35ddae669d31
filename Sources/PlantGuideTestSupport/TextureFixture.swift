import Foundation

/// Pictures whose content differs clearly (a plasma texture, a smooth gradient, stripes), and the edits a phone makes
/// to a photo taken again (a crop, a resize), for testing what a model's embeddings can tell apart. Pixels are RGB,
/// row by row.
public struct TextureFixture: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    /// A picture from its pixels (`width` × `height` × 3 bytes).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "3 bytes per pixel")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A colourful "plasma" texture: smooth random value noise summed over five octaves, different per `seed`.
    public static func plasma(width: Int = 320, height: Int = 240, seed: UInt32 = 1) -> TextureFixture {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    var value = 0.0, amplitude = 0.5, cell = 64.0
                    for octave in 0..<5 {
                        value += amplitude * noise(Double(x) / cell, Double(y) / cell, seed: seed &+ UInt32(channel * 31 + octave * 7))
                        amplitude /= 2
                        cell /= 2
                    }
                    pixels[(y * width + x) * 3 + channel] = UInt8(max(0, min(255, value * 255)))
                }
            }
        }
        return TextureFixture(width: width, height: height, pixels: pixels)
    }

    /// A smooth diagonal gradient between two colours chosen by `seed`.
    public static func gradient(width: Int = 320, height: Int = 240, seed: UInt32 = 1) -> TextureFixture {
        let from = (hash(seed, 1, 0, 0), hash(seed, 2, 0, 0), hash(seed, 3, 0, 0))
        let to = (hash(seed, 4, 0, 0), hash(seed, 5, 0, 0), hash(seed, 6, 0, 0))
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let t = (Double(x) / Double(max(width - 1, 1)) + Double(y) / Double(max(height - 1, 1))) / 2
                let base = (y * width + x) * 3
                pixels[base] = UInt8((from.0 * (1 - t) + to.0 * t) * 255)
                pixels[base + 1] = UInt8((from.1 * (1 - t) + to.1 * t) * 255)
                pixels[base + 2] = UInt8((from.2 * (1 - t) + to.2 * t) * 255)
            }
        }
        return TextureFixture(width: width, height: height, pixels: pixels)
    }

    /// Black and white stripes `period` pixels wide, at an angle.
    public static func stripes(width: Int = 320, height: Int = 240, period: Int = 12) -> TextureFixture {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width where ((x + y / 2) / max(period, 1)) % 2 == 0 {
                let base = (y * width + x) * 3
                pixels[base] = 250
                pixels[base + 1] = 250
                pixels[base + 2] = 250
            }
        }
        return TextureFixture(width: width, height: height, pixels: pixels)
    }

    /// The picture with `fraction` of each side cut off (half on each side), resized to `width` × `height`
    /// (bilinear), like a photo framed a little tighter and sent at another size.
    public func cropped(by fraction: Double, resizedTo newWidth: Int, _ newHeight: Int) -> TextureFixture {
        let left = Double(width) * fraction / 2, top = Double(height) * fraction / 2
        let cropWidth = Double(width) * (1 - fraction), cropHeight = Double(height) * (1 - fraction)
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for y in 0..<newHeight {
            let sourceY = min(Double(height - 1), top + (Double(y) + 0.5) * cropHeight / Double(newHeight) - 0.5)
            let y0 = max(0, Int(sourceY)), y1 = min(height - 1, y0 + 1), fy = max(0, sourceY - Double(y0))
            for x in 0..<newWidth {
                let sourceX = min(Double(width - 1), left + (Double(x) + 0.5) * cropWidth / Double(newWidth) - 0.5)
                let x0 = max(0, Int(sourceX)), x1 = min(width - 1, x0 + 1), fx = max(0, sourceX - Double(x0))
                for channel in 0..<3 {
                    func at(_ px: Int, _ py: Int) -> Double { Double(pixels[(py * width + px) * 3 + channel]) }
                    let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
                    let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
                    output[(y * newWidth + x) * 3 + channel] = UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
                }
            }
        }
        return TextureFixture(width: newWidth, height: newHeight, pixels: output)
    }

    /// The picture as a PNG file.
    public var png: Data {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw.append(contentsOf: pixels[(y * width * 3)..<((y + 1) * width * 3)])
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += ImageFixture.chunk("IHDR", ImageFixture.bigEndian(UInt32(width)) + ImageFixture.bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
        png += ImageFixture.chunk("IDAT", ImageFixture.zlibStored(raw))
        png += ImageFixture.chunk("IEND", [])
        return Data(png)
    }

    /// Smoothly interpolated lattice noise in 0…1.
    private static func noise(_ x: Double, _ y: Double, seed: UInt32) -> Double {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let fx = x - Double(x0), fy = y - Double(y0)
        let sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy)
        let top = hash(seed, 0, x0, y0) * (1 - sx) + hash(seed, 0, x0 + 1, y0) * sx
        let bottom = hash(seed, 0, x0, y0 + 1) * (1 - sx) + hash(seed, 0, x0 + 1, y0 + 1) * sx
        return top * (1 - sy) + bottom * sy
    }

    /// A repeatable pseudo-random number in 0…1 for a lattice point.
    private static func hash(_ seed: UInt32, _ salt: UInt32, _ x: Int, _ y: Int) -> Double {
        var h = seed &* 0x9E37_79B9 ^ salt &* 0x85EB_CA6B ^ UInt32(truncatingIfNeeded: x) &* 0xC2B2_AE35
            ^ UInt32(truncatingIfNeeded: y) &* 0x27D4_EB2F
        h ^= h >> 15
        h = h &* 0x2C1B_3C6D
        h ^= h >> 12
        h = h &* 0x297A_2D39
        h ^= h >> 15
        return Double(h) / Double(UInt32.max)
    }
}
