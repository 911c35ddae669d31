import Foundation

/// The torchvision ResNet variants the engine runs.
public enum ResNetArchitecture: String, CaseIterable, Codable, Sendable {
    case resnet18, resnet34, resnet50, resnet101

    /// Residual blocks per stage (`layer1` … `layer4`).
    var blockCounts: [Int] {
        switch self {
        case .resnet18: [2, 2, 2, 2]
        case .resnet34, .resnet50: [3, 4, 6, 3]
        case .resnet101: [3, 4, 23, 3]
        }
    }

    /// Whether blocks are bottlenecks (1×1, 3×3, 1×1 with 4× expansion) rather than two 3×3 convolutions.
    var usesBottleneck: Bool { self == .resnet50 || self == .resnet101 }

    var expansion: Int { usesBottleneck ? 4 : 1 }

    /// Reads an architecture name as typed by people (`ResNet50`, `resnet-50`, `resnet50`).
    public init?(name: String) {
        let folded = name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        self.init(rawValue: folded)
    }

    /// Finds the architecture named in a file name such as `resnet50_weights_best_acc.tar`.
    public static func guess(fromFileName name: String) -> ResNetArchitecture? {
        let lower = name.lowercased()
        // Longest names first so `resnet101` is not read as `resnet10…`.
        return allCases.sorted { $0.rawValue.count > $1.rawValue.count }.first { lower.contains($0.rawValue) }
    }
}

/// One convolution followed by batch-norm, named as in torchvision's state dict.
struct ConvSpec: Sendable, Hashable {
    /// Name of the convolution, e.g. `layer1.0.conv1` or `layer1.0.downsample.0`.
    var convName: String
    /// Name of its batch-norm, e.g. `layer1.0.bn1` or `layer1.0.downsample.1`.
    var normName: String
    /// Name of the folded layer in PlantGuide's model file, e.g. `layer1.0.conv1` or `layer1.0.downsample`.
    var name: String
    var inChannels: Int
    var outChannels: Int
    var kernel: Int
    var stride: Int
    var padding: Int

    /// Rows of the packed weight matrix: kernel height × kernel width × input channels.
    var reduction: Int { kernel * kernel * inChannels }

    func outputSize(_ size: Int) -> Int { (size + 2 * padding - kernel) / stride + 1 }
}

/// Where a convolution runs in the network: the size of its input map and what its epilogue fuses.
struct ConvPlacement: Sendable, Hashable {
    var height: Int
    var width: Int
    var relu: Bool
    /// Adds the output's previous contents (the block's shortcut) before the ReLU.
    var accumulate: Bool
}

/// A residual block: its convolutions in order, and the projection of the shortcut when shapes change.
struct BlockSpec: Sendable, Hashable {
    var convs: [ConvSpec]
    var downsample: ConvSpec?
}

/// The whole network as a list of layers with their shapes.
struct NetworkSpec: Sendable, Hashable {
    var architecture: ResNetArchitecture
    /// Channels after the stem (64 in torchvision; smaller in test fixtures).
    var baseWidth: Int
    var classes: Int
    var stem: ConvSpec
    var blocks: [BlockSpec]
    /// Channels entering the final linear layer.
    var features: Int

    init(architecture: ResNetArchitecture, baseWidth: Int = 64, classes: Int) {
        self.architecture = architecture
        self.baseWidth = baseWidth
        self.classes = classes
        stem = ConvSpec(
            convName: "conv1", normName: "bn1", name: "conv1", inChannels: 3, outChannels: baseWidth,
            kernel: 7, stride: 2, padding: 3
        )
        var inplanes = baseWidth
        var blocks: [BlockSpec] = []
        let expansion = architecture.expansion
        for (stage, count) in architecture.blockCounts.enumerated() {
            let planes = baseWidth << stage
            for index in 0..<count {
                let prefix = "layer\(stage + 1).\(index)"
                let stride = (stage > 0 && index == 0) ? 2 : 1
                func conv(_ n: Int, _ cin: Int, _ cout: Int, _ k: Int, _ s: Int) -> ConvSpec {
                    ConvSpec(
                        convName: "\(prefix).conv\(n)", normName: "\(prefix).bn\(n)", name: "\(prefix).conv\(n)",
                        inChannels: cin, outChannels: cout, kernel: k, stride: s, padding: k / 2
                    )
                }
                var convs: [ConvSpec]
                if architecture.usesBottleneck {
                    convs = [conv(1, inplanes, planes, 1, 1), conv(2, planes, planes, 3, stride), conv(3, planes, planes * 4, 1, 1)]
                } else {
                    convs = [conv(1, inplanes, planes, 3, stride), conv(2, planes, planes, 3, 1)]
                }
                var downsample: ConvSpec?
                if stride != 1 || inplanes != planes * expansion {
                    downsample = ConvSpec(
                        convName: "\(prefix).downsample.0", normName: "\(prefix).downsample.1",
                        name: "\(prefix).downsample", inChannels: inplanes, outChannels: planes * expansion,
                        kernel: 1, stride: stride, padding: 0
                    )
                }
                blocks.append(BlockSpec(convs: convs, downsample: downsample))
                inplanes = planes * expansion
            }
        }
        self.blocks = blocks
        features = inplanes
    }

    /// Every convolution, stem first, in execution order.
    var allConvs: [ConvSpec] {
        [stem] + blocks.flatMap { $0.convs + ($0.downsample.map { [$0] } ?? []) }
    }

    /// 3×3 stride-1 convolutions whose output is at least 14×14 for a square input of `inputSize`: those
    /// run as Winograd F(2×2, 3×3). Smaller maps have too few tiles for the transform to pay.
    func winogradConvs(inputSize: Int) -> Set<String> {
        var names: Set<String> = []
        var size = (stem.outputSize(inputSize) - 1) / 2 + 1
        for block in blocks {
            var blockSize = size
            for conv in block.convs {
                blockSize = conv.outputSize(blockSize)
                if conv.kernel == 3, conv.stride == 1, blockSize >= 14 { names.insert(conv.name) }
            }
            size = blockSize
        }
        return names
    }

    /// Every convolution with the size of the (square) map it reads for an input of `inputSize`, and
    /// its fused epilogue: ReLU everywhere but the shortcut projections, and the residual add in the
    /// last convolution of each block.
    func convPlacements(inputSize: Int) -> [(conv: ConvSpec, placement: ConvPlacement)] {
        var placements = [(stem, ConvPlacement(height: inputSize, width: inputSize, relu: true, accumulate: false))]
        var size = (stem.outputSize(inputSize) - 1) / 2 + 1
        for block in blocks {
            if let downsample = block.downsample {
                placements.append((downsample, ConvPlacement(height: size, width: size, relu: false, accumulate: false)))
            }
            var blockSize = size
            for (index, conv) in block.convs.enumerated() {
                let isLast = index == block.convs.count - 1
                placements.append((conv, ConvPlacement(height: blockSize, width: blockSize, relu: true, accumulate: isLast)))
                blockSize = conv.outputSize(blockSize)
            }
            size = blockSize
        }
        return placements
    }

    /// The tensors of PlantGuide's model file for a model fed `inputSize` images, with their (packed)
    /// shapes, in file order. Winograd convolutions store `<conv>.winograd` `[16, cin, cout]` in place
    /// of `<conv>.weight`.
    func packedTensors(inputSize: Int) -> [(name: String, shape: [Int])] {
        let winograd = winogradConvs(inputSize: inputSize)
        return allConvs.flatMap { conv in
            let weight = winograd.contains(conv.name)
                ? ("\(conv.name).winograd", [16, conv.inChannels, conv.outChannels])
                : ("\(conv.name).weight", [conv.reduction, conv.outChannels])
            return [weight, ("\(conv.name).bias", [conv.outChannels])]
        } + [("fc.weight", [features, classes]), ("fc.bias", [classes])]
    }
}
