import CPlantKernels
import Foundation

/// A batch of feature maps in NHWC order (channels last), so a 1×1 convolution is one plain GEMM.
struct FeatureShape: Hashable {
    var batch: Int
    var height: Int
    var width: Int
    var channels: Int

    var pixels: Int { batch * height * width }
    var count: Int { pixels * channels }
}

/// The loops around the GEMMs: patch gathering, epilogues and pooling. Pointer arithmetic stays in here.
enum Kernels {
    /// Gathers the receptive field of every output pixel into one row (kh, kw, channel order), zero
    /// outside the image. Output: `[batch·outH·outW, kernel·kernel·channels]`.
    static func im2col(
        _ input: UnsafePointer<Float>, _ shape: FeatureShape, conv: ConvSpec, outHeight: Int, outWidth: Int,
        into columns: UnsafeMutablePointer<Float>, threads: Int
    ) {
        let cin = shape.channels, k = conv.kernel, stride = conv.stride, pad = conv.padding
        let rowLength = k * k * cin
        let rows = shape.batch * outHeight * outWidth
        let bytesPerRun = cin * MemoryLayout<Float>.stride
        parallelRanges(rows, threads: threads, minimumPerThread: max(1, 65_536 / rowLength)) { range in
            for row in range {
                let n = row / (outHeight * outWidth)
                let oy = (row / outWidth) % outHeight
                let ox = row % outWidth
                let image = input + n * shape.height * shape.width * cin
                var destination = columns + row * rowLength
                for ky in 0..<k {
                    let iy = oy * stride - pad + ky
                    guard iy >= 0, iy < shape.height else {
                        memset(destination, 0, bytesPerRun * k)
                        destination += cin * k
                        continue
                    }
                    for kx in 0..<k {
                        let ix = ox * stride - pad + kx
                        if ix >= 0, ix < shape.width {
                            let source = image + (iy * shape.width + ix) * cin
                            if cin <= 4 {
                                // The RGB stem: a call per 12 bytes costs more than the copy.
                                for c in 0..<cin { destination[c] = source[c] }
                            } else {
                                memcpy(destination, source, bytesPerRun)
                            }
                        } else {
                            memset(destination, 0, bytesPerRun)
                        }
                        destination += cin
                    }
                }
            }
        }
    }

    /// The GEMM's epilogue in one pass over its output: add the bias, the shortcut (when given), and
    /// clamp at zero (when `relu`).
    static func epilogue(
        _ output: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>, channels: Int,
        residual: UnsafePointer<Float>?, relu: Bool, threads: Int
    ) {
        parallelRanges(rows, threads: threads, minimumPerThread: max(1, 65_536 / channels)) { range in
            for row in range {
                let out = output + row * channels
                switch (residual, relu) {
                case (let residual?, true):
                    let shortcut = residual + row * channels
                    for c in 0..<channels { out[c] = max(out[c] + bias[c] + shortcut[c], 0) }
                case (let residual?, false):
                    let shortcut = residual + row * channels
                    for c in 0..<channels { out[c] += bias[c] + shortcut[c] }
                case (nil, true):
                    for c in 0..<channels { out[c] = max(out[c] + bias[c], 0) }
                case (nil, false):
                    for c in 0..<channels { out[c] += bias[c] }
                }
            }
        }
    }

    /// 3×3 max pooling, stride 2, padding 1 (the ResNet stem).
    static func maxPool(
        _ input: UnsafePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>,
        outHeight: Int, outWidth: Int, threads: Int
    ) {
        let rows = shape.batch * outHeight
        parallelRanges(rows, threads: threads, minimumPerThread: max(1, 65_536 / (outWidth * shape.channels))) { range in
            pg_max_pool_3x3s2(
                input, output, Int32(shape.channels), Int32(shape.height), Int32(shape.width), Int32(outHeight), Int32(outWidth),
                Int32(range.lowerBound), Int32(range.upperBound)
            )
        }
    }

    /// Mean over height and width: `[batch, channels]`.
    static func globalAveragePool(_ input: UnsafePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>) {
        pg_global_average_pool(input, output, Int32(shape.batch), Int32(shape.channels), Int32(shape.height), Int32(shape.width))
    }

    /// NCHW (PyTorch's layout, what the preprocessor produces) to NHWC.
    static func toChannelsLast(_ input: UnsafePointer<Float>, _ shape: FeatureShape, into output: UnsafeMutablePointer<Float>) {
        let c = shape.channels, area = shape.height * shape.width
        for n in 0..<shape.batch {
            let source = input + n * c * area
            let destination = output + n * c * area
            for channel in 0..<c {
                for p in 0..<area { destination[p * c + channel] = source[channel * area + p] }
            }
        }
    }
}
