/// Converts 8-bit YCbCr 4:2:0 planes (as HEVC decoders return them) to RGB, optionally averaging
/// `factor`×`factor` blocks on the way. Shrinking before converting touches each sample once and
/// skips the full-size RGB buffer, which for a 12 MP HEIC costs more than a third of the decode.
struct YCbCrConversion {
    /// Luma weights of red and blue (Kr, Kb) of the colour matrix.
    var kr: Double
    var kb: Double
    /// Whether samples use the full 0…255 range (else "video" range: luma 16…235, chroma 16…240).
    var fullRange: Bool

    /// The matrix for an ITU-T H.273 `matrix_coefficients` code, or `nil` for ones not handled here.
    init?(matrixCoefficients: Int, fullRange: Bool) {
        switch matrixCoefficients {
        case 1: (kr, kb) = (0.2126, 0.0722)
        case 2, 5, 6: (kr, kb) = (0.299, 0.114)  // unspecified is read as BT.601, as libheif does
        case 4: (kr, kb) = (0.30, 0.11)
        case 7: (kr, kb) = (0.212, 0.087)
        case 9: (kr, kb) = (0.2627, 0.0593)
        default: return nil
        }
        self.fullRange = fullRange
    }

    struct Plane {
        var base: UnsafePointer<UInt8>
        var stride: Int
    }

    /// RGB of a `width`×`height` picture reduced by `factor` (1 keeps the size; the result is
    /// ⌈width/factor⌉×⌈height/factor⌉). Chroma is read at half resolution, nearest sample when not reducing.
    func rgb(y: Plane, cb: Plane, cr: Plane, width: Int, height: Int, factor: Int) -> RGBImage {
        let outWidth = (width + factor - 1) / factor, outHeight = (height + factor - 1) / factor
        let kg = 1 - kr - kb
        let rCr = 2 * (1 - kr), bCb = 2 * (1 - kb)
        let gCb = -2 * kb * (1 - kb) / kg, gCr = -2 * kr * (1 - kr) / kg
        let lumaScale = fullRange ? 1.0 : 255.0 / 219.0, lumaOffset = fullRange ? 0.0 : 16.0
        let chromaScale = fullRange ? 1.0 : 255.0 / 224.0
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let count = outWidth * outHeight * 3
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            for oy in 0..<outHeight {
                let y0 = oy * factor, y1 = min(y0 + factor, height)
                let c0 = y0 / 2, c1 = max(min((y1 + 1) / 2, chromaHeight), c0 + 1)
                for ox in 0..<outWidth {
                    let x0 = ox * factor, x1 = min(x0 + factor, width)
                    var lumaSum = 0
                    for row in y0..<y1 {
                        let line = y.base + row * y.stride
                        for column in x0..<x1 { lumaSum += Int(line[column]) }
                    }
                    let d0 = x0 / 2, d1 = max(min((x1 + 1) / 2, chromaWidth), d0 + 1)
                    var cbSum = 0, crSum = 0
                    for row in c0..<c1 {
                        let cbLine = cb.base + row * cb.stride, crLine = cr.base + row * cr.stride
                        for column in d0..<d1 {
                            cbSum += Int(cbLine[column])
                            crSum += Int(crLine[column])
                        }
                    }
                    let luma = (Double(lumaSum) / Double((y1 - y0) * (x1 - x0)) - lumaOffset) * lumaScale
                    let chromaCount = Double((c1 - c0) * (d1 - d0))
                    let blue = (Double(cbSum) / chromaCount - 128) * chromaScale
                    let red = (Double(crSum) / chromaCount - 128) * chromaScale
                    let index = (oy * outWidth + ox) * 3
                    out[index] = Self.clamp(luma + rCr * red)
                    out[index + 1] = Self.clamp(luma + gCb * blue + gCr * red)
                    out[index + 2] = Self.clamp(luma + bCb * blue)
                }
            }
            initialized = count
        }
        return RGBImage(unchecked: outWidth, outHeight, pixels)
    }

    @inline(__always)
    private static func clamp(_ value: Double) -> UInt8 {
        value <= 0 ? 0 : value >= 255 ? 255 : UInt8(value + 0.5)
    }
}
