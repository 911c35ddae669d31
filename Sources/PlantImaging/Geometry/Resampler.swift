/// Resizes 8-bit images exactly as Pillow's `Image.resize(size, Image.BILINEAR)` does: a triangle
/// filter widened by the scale factor when shrinking (antialiasing), fixed-point weights with 22
/// fraction bits, a horizontal pass rounded to 8 bits, then a vertical pass. Matching its arithmetic
/// makes the model see the same numbers it was trained on (torchvision's `Resize` calls Pillow).
///
/// Only the output window `crop` is computed, so resize-then-centre-crop costs no more than the crop.
struct Resampler {
    private static let precisionBits = 22

    /// Taps of one output coordinate: the first input index and fixed-point weights.
    struct Taps {
        var first: Int
        var weights: [Int32]
    }

    /// Weights for output coordinates `range` when mapping `inSize` samples onto `outSize`, as Pillow's
    /// `precompute_coeffs`. Only the asked range is computed: an extreme aspect ratio can make the
    /// resized long side enormous while the crop stays small.
    static func taps(inSize: Int, outSize: Int, range: Range<Int>) -> [Taps] {
        let scale = Double(inSize) / Double(outSize)
        let filterScale = max(scale, 1)
        let support = 1.0 * filterScale
        return range.map { index in
            let center = (Double(index) + 0.5) * scale
            let first = max(Int(center - support + 0.5), 0)
            let end = min(Int(center + support + 0.5), inSize)
            var weights = [Double]()
            weights.reserveCapacity(max(end - first, 0))
            var total = 0.0
            for x in first..<max(end, first) {
                let distance = abs((Double(x) - center + 0.5) / filterScale)
                let weight = distance < 1 ? 1 - distance : 0
                weights.append(weight)
                total += weight
            }
            let unit = Double(1 << precisionBits)
            let fixed = weights.map { weight -> Int32 in
                let normalized = total != 0 ? weight / total : 0
                return Int32(normalized < 0 ? -0.5 + normalized * unit : 0.5 + normalized * unit)
            }
            return Taps(first: first, weights: fixed)
        }
    }

    @inline(__always)
    private static func clip(_ sum: Int32) -> UInt8 {
        let value = sum >> Int32(precisionBits)
        return value < 0 ? 0 : value > 255 ? 255 : UInt8(truncatingIfNeeded: value)
    }

    /// Resizes `pixels` (`channels` interleaved) from `width`×`height` to `outWidth`×`outHeight` and
    /// returns the window starting at (`cropX`, `cropY`) of `cropWidth`×`cropHeight`.
    static func resize(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int,
        to outWidth: Int, _ outHeight: Int,
        cropX: Int = 0, cropY: Int = 0, cropWidth: Int? = nil, cropHeight: Int? = nil
    ) -> [UInt8] {
        let cropWidth = cropWidth ?? outWidth, cropHeight = cropHeight ?? outHeight
        let columns = taps(inSize: width, outSize: outWidth, range: cropX..<cropX + cropWidth)
        let rows = taps(inSize: height, outSize: outHeight, range: cropY..<cropY + cropHeight)
        let half = Int32(1 << (precisionBits - 1))

        // Input rows the vertical pass will read.
        let firstRow = rows.map(\.first).min() ?? 0
        let endRow = rows.map { $0.first + $0.weights.count }.max() ?? 0

        // Horizontal pass (skipped, like Pillow, when the width does not change).
        let horizontal: [UInt8]
        let rowStride: Int
        if outWidth == width {
            rowStride = width * channels
            horizontal = Array(pixels[(firstRow * rowStride)..<(endRow * rowStride)])
        } else {
            rowStride = cropWidth * channels
            horizontal = [UInt8](unsafeUninitializedCapacity: (endRow - firstRow) * rowStride) { out, count in
                pixels.withUnsafeBufferPointer { source in
                    for y in firstRow..<endRow {
                        let inRow = y * width * channels
                        let outRow = (y - firstRow) * rowStride
                        for (x, tap) in columns.enumerated() {
                            for c in 0..<channels {
                                var sum = half
                                var index = inRow + tap.first * channels + c
                                for weight in tap.weights {
                                    sum &+= Int32(source[index]) &* weight
                                    index += channels
                                }
                                out[outRow + x * channels + c] = clip(sum)
                            }
                        }
                    }
                }
                count = (endRow - firstRow) * rowStride
            }
        }
        let columnOffset = outWidth == width ? cropX * channels : 0

        // Vertical pass.
        if outHeight == height {
            var result = [UInt8]()
            result.reserveCapacity(cropWidth * cropHeight * channels)
            for y in cropY..<cropY + cropHeight {
                let start = (y - firstRow) * rowStride + columnOffset
                result += horizontal[start..<start + cropWidth * channels]
            }
            return result
        }
        let lineLength = cropWidth * channels
        return [UInt8](unsafeUninitializedCapacity: cropHeight * lineLength) { out, count in
            horizontal.withUnsafeBufferPointer { source in
                for (y, tap) in rows.enumerated() {
                    for i in 0..<lineLength {
                        var sum = half
                        var index = (tap.first - firstRow) * rowStride + columnOffset + i
                        for weight in tap.weights {
                            sum &+= Int32(source[index]) &* weight
                            index += rowStride
                        }
                        out[y * lineLength + i] = clip(sum)
                    }
                }
            }
            count = cropHeight * lineLength
        }
    }
}
