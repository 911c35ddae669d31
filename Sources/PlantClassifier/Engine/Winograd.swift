import Foundation

/// 3×3 stride-1 convolutions by Winograd's minimal filtering F(2×2, 3×3): each 4×4 input tile gives a
/// 2×2 output tile with 16 multiplications per channel pair instead of 36, as 16 GEMMs of
/// `[tiles, inChannels] × [inChannels, outChannels]`. Used where feature maps are large enough
/// (≥ 14×14 at the model's input size) for the tile GEMMs to stay efficient.
enum Winograd {
    /// Transformed weights `U = G g Gᵀ` for packed 3×3 weights `[(ky·3 + kx)·cin + ci, co]`, laid out
    /// `[16, cin, cout]`.
    static func transformWeights(_ packed: [Float], inChannels cin: Int, outChannels cout: Int) -> [Float] {
        var transformed = [Float](repeating: 0, count: 16 * cin * cout)
        for ci in 0..<cin {
            for co in 0..<cout {
                func g(_ y: Int, _ x: Int) -> Double { Double(packed[((y * 3 + x) * cin + ci) * cout + co]) }
                // G g: 4×3, rows r0…r3.
                let r0 = (g(0, 0), g(0, 1), g(0, 2))
                let r3 = (g(2, 0), g(2, 1), g(2, 2))
                let r1 = ((g(0, 0) + g(1, 0) + g(2, 0)) / 2, (g(0, 1) + g(1, 1) + g(2, 1)) / 2, (g(0, 2) + g(1, 2) + g(2, 2)) / 2)
                let r2 = ((g(0, 0) - g(1, 0) + g(2, 0)) / 2, (g(0, 1) - g(1, 1) + g(2, 1)) / 2, (g(0, 2) - g(1, 2) + g(2, 2)) / 2)
                // (G g) Gᵀ: each row (a, b, c) becomes (a, (a+b+c)/2, (a-b+c)/2, c).
                for (y, row) in [r0, r1, r2, r3].enumerated() {
                    let values = (row.0, (row.0 + row.1 + row.2) / 2, (row.0 - row.1 + row.2) / 2, row.2)
                    transformed[((y * 4 + 0) * cin + ci) * cout + co] = Float(values.0)
                    transformed[((y * 4 + 1) * cin + ci) * cout + co] = Float(values.1)
                    transformed[((y * 4 + 2) * cin + ci) * cout + co] = Float(values.2)
                    transformed[((y * 4 + 3) * cin + ci) * cout + co] = Float(values.3)
                }
            }
        }
        return transformed
    }

    /// Tiles covering an output of `shape` (stride 1, padding 1: same size as the input).
    static func tileCount(_ shape: FeatureShape) -> Int {
        shape.batch * ((shape.height + 1) / 2) * ((shape.width + 1) / 2)
    }

    /// `V = Bᵀ d B` for every tile and channel: `[16, tiles, channels]`.
    static func transformInput(
        _ input: UnsafePointer<Float>, _ shape: FeatureShape, into transformed: UnsafeMutablePointer<Float>,
        zeros: UnsafePointer<Float>, threads: Int
    ) {
        let c = shape.channels
        let tilesHigh = (shape.height + 1) / 2, tilesWide = (shape.width + 1) / 2
        let tiles = shape.batch * tilesHigh * tilesWide
        parallelRanges(tiles, threads: threads, minimumPerThread: max(1, 16_384 / c)) { range in
            withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: 16) { d in
                for tile in range {
                    let n = tile / (tilesHigh * tilesWide)
                    let y0 = (tile / tilesWide) % tilesHigh * 2 - 1
                    let x0 = tile % tilesWide * 2 - 1
                    for y in 0..<4 {
                        for x in 0..<4 {
                            let iy = y0 + y, ix = x0 + x
                            let inside = iy >= 0 && iy < shape.height && ix >= 0 && ix < shape.width
                            d[y * 4 + x] = inside ? input + ((n * shape.height + iy) * shape.width + ix) * c : zeros
                        }
                    }
                    let out = transformed + tile * c
                    let stride = tiles * c
                    let (d0, d1, d2, d3, d4, d5, d6, d7) = (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7])
                    let (d8, d9, d10, d11, d12, d13, d14, d15) = (d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15])
                    for ch in 0..<c {
                        // Bᵀ d: rows.
                        let t00 = d0[ch] - d8[ch], t01 = d1[ch] - d9[ch], t02 = d2[ch] - d10[ch], t03 = d3[ch] - d11[ch]
                        let t10 = d4[ch] + d8[ch], t11 = d5[ch] + d9[ch], t12 = d6[ch] + d10[ch], t13 = d7[ch] + d11[ch]
                        let t20 = d8[ch] - d4[ch], t21 = d9[ch] - d5[ch], t22 = d10[ch] - d6[ch], t23 = d11[ch] - d7[ch]
                        let t30 = d4[ch] - d12[ch], t31 = d5[ch] - d13[ch], t32 = d6[ch] - d14[ch], t33 = d7[ch] - d15[ch]
                        // (Bᵀ d) B: columns.
                        out[ch] = t00 - t02
                        out[stride + ch] = t01 + t02
                        out[2 * stride + ch] = t02 - t01
                        out[3 * stride + ch] = t01 - t03
                        out[4 * stride + ch] = t10 - t12
                        out[5 * stride + ch] = t11 + t12
                        out[6 * stride + ch] = t12 - t11
                        out[7 * stride + ch] = t11 - t13
                        out[8 * stride + ch] = t20 - t22
                        out[9 * stride + ch] = t21 + t22
                        out[10 * stride + ch] = t22 - t21
                        out[11 * stride + ch] = t21 - t23
                        out[12 * stride + ch] = t30 - t32
                        out[13 * stride + ch] = t31 + t32
                        out[14 * stride + ch] = t32 - t31
                        out[15 * stride + ch] = t31 - t33
                    }
                }
            }
        }
    }

    /// `Y = Aᵀ m A` for every tile, plus bias, shortcut and ReLU, written to the NHWC output.
    static func transformOutput(
        _ products: UnsafePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>,
        bias: UnsafePointer<Float>, residual: UnsafePointer<Float>?, relu: Bool, zeros: UnsafePointer<Float>, threads: Int
    ) {
        let c = shape.channels
        let tilesHigh = (shape.height + 1) / 2, tilesWide = (shape.width + 1) / 2
        let tiles = shape.batch * tilesHigh * tilesWide
        let floor: Float = relu ? 0 : -.infinity
        parallelRanges(tiles, threads: threads, minimumPerThread: max(1, 16_384 / c)) { range in
            // Outputs that fall outside an odd-sized map go to a private junk row.
            withUnsafeTemporaryAllocation(of: Float.self, capacity: c) { junkBuffer in
                guard let junk = junkBuffer.baseAddress else { return }
                for tile in range {
                    let n = tile / (tilesHigh * tilesWide)
                    let y0 = (tile / tilesWide) % tilesHigh * 2
                    let x0 = tile % tilesWide * 2
                    func target(_ dy: Int, _ dx: Int) -> (UnsafeMutablePointer<Float>, UnsafePointer<Float>) {
                        let y = y0 + dy, x = x0 + dx
                        guard y < shape.height, x < shape.width else { return (junk, zeros) }
                        let offset = ((n * shape.height + y) * shape.width + x) * c
                        return (output + offset, residual.map { $0 + offset } ?? zeros)
                    }
                    let (o00, r00) = target(0, 0), (o01, r01) = target(0, 1)
                    let (o10, r10) = target(1, 0), (o11, r11) = target(1, 1)
                    let m = products + tile * c
                    let stride = tiles * c
                    for ch in 0..<c {
                        let m0 = m[ch], m1 = m[stride + ch], m2 = m[2 * stride + ch], m3 = m[3 * stride + ch]
                        let m4 = m[4 * stride + ch], m5 = m[5 * stride + ch], m6 = m[6 * stride + ch], m7 = m[7 * stride + ch]
                        let m8 = m[8 * stride + ch], m9 = m[9 * stride + ch], m10 = m[10 * stride + ch], m11 = m[11 * stride + ch]
                        let m12 = m[12 * stride + ch], m13 = m[13 * stride + ch], m14 = m[14 * stride + ch], m15 = m[15 * stride + ch]
                        // Aᵀ m: rows.
                        let s00 = m0 + m4 + m8, s01 = m1 + m5 + m9, s02 = m2 + m6 + m10, s03 = m3 + m7 + m11
                        let s10 = m4 - m8 - m12, s11 = m5 - m9 - m13, s12 = m6 - m10 - m14, s13 = m7 - m11 - m15
                        let b = bias[ch]
                        o00[ch] = max(s00 + s01 + s02 + b + r00[ch], floor)
                        o01[ch] = max(s01 - s02 - s03 + b + r01[ch], floor)
                        o10[ch] = max(s10 + s11 + s12 + b + r10[ch], floor)
                        o11[ch] = max(s11 - s12 - s13 + b + r11[ch], floor)
                    }
                }
            }
        }
    }
}
