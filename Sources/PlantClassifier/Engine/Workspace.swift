import Foundation

/// Scratch memory for one forward pass: four activation buffers, one for gathered patches and one for
/// weights widened from float16. Reused across calls with the same input size so the hot path does
/// not allocate.
final class Workspace {
    let batch: Int
    let height: Int
    let width: Int
    private(set) var activations: [UnsafeMutablePointer<Float>]
    let columns: UnsafeMutablePointer<Float>
    let weights: UnsafeMutablePointer<Float>
    /// Floats `weights` has room for.
    let weightCapacity: Int
    /// Winograd tile products, `[16, tiles, outChannels]`.
    let products: UnsafeMutablePointer<Float>
    /// A row of zeros as wide as the widest feature map: padding for Winograd tiles.
    let zeros: UnsafeMutablePointer<Float>
    let activationCapacity: Int

    /// `gathersPatches` is false when the convolutions run elsewhere (oneDNN) and need no patch buffers;
    /// `channelBlock` (when not 0) pads every map's channels to whole blocks of it.
    init(
        spec: NetworkSpec, batch: Int, height: Int, width: Int, weightScratch: Int, winograd: Set<String>,
        gathersPatches: Bool = true, channelBlock: Int = 0
    ) {
        self.batch = batch
        self.height = height
        self.width = width
        var largest = batch * height * width * 3
        var largestColumns = 1
        var largestProducts = 1
        var widest = 1
        var h = height, w = width
        func stored(_ channels: Int) -> Int { DNNLConvolutions.storedChannels(channels, block: channelBlock) }
        func visit(_ conv: ConvSpec, _ inH: Int, _ inW: Int) -> (Int, Int) {
            let oh = conv.outputSize(inH), ow = conv.outputSize(inW)
            largest = max(largest, batch * oh * ow * stored(conv.outChannels))
            widest = max(widest, conv.inChannels, conv.outChannels)
            if !gathersPatches {
                return (oh, ow)
            } else if winograd.contains(conv.name) {
                let tiles = batch * ((oh + 1) / 2) * ((ow + 1) / 2)
                largestColumns = max(largestColumns, 16 * tiles * conv.inChannels)
                largestProducts = max(largestProducts, 16 * tiles * conv.outChannels)
            } else if conv.kernel > 1 || conv.stride > 1 {
                largestColumns = max(largestColumns, batch * oh * ow * conv.reduction)
            }
            return (oh, ow)
        }
        (h, w) = visit(spec.stem, h, w)
        h = (h + 1) / 2
        w = (w + 1) / 2
        for block in spec.blocks {
            var (bh, bw) = (h, w)
            for conv in block.convs { (bh, bw) = visit(conv, bh, bw) }
            if let downsample = block.downsample { _ = visit(downsample, h, w) }
            (h, w) = (bh, bw)
        }
        largest = max(largest, batch * max(stored(spec.features), spec.classes))
        activationCapacity = largest
        // Zeroed once, so the channels that pad blocked maps never start as garbage (a NaN) a layer could read.
        activations = (0..<4).map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: largest)
            buffer.initialize(repeating: 0, count: largest)
            return buffer
        }
        columns = .allocate(capacity: largestColumns)
        weightCapacity = max(weightScratch, 1)
        weights = .allocate(capacity: weightCapacity)
        products = .allocate(capacity: largestProducts)
        zeros = .allocate(capacity: widest)
        zeros.initialize(repeating: 0, count: widest)
    }

    deinit {
        for buffer in activations { buffer.deallocate() }
        columns.deallocate()
        weights.deallocate()
        products.deallocate()
        zeros.deallocate()
    }

    func fits(batch: Int, height: Int, width: Int) -> Bool {
        batch == self.batch && height == self.height && width == self.width
    }
}
