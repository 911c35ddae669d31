import Foundation

/// A model file's weights in PyTorch's layout, for other runtimes (the Core ML export): each convolution, batch-norm
/// folded in as the importer folded it, as `NAME.weight` `[out, in, kh, kw]` and `NAME.bias` `[out]`, and the classifier
/// as `fc.weight` `[classes, features]` and `fc.bias` `[classes]`, with torchvision's names (`conv1`,
/// `layer1.0.conv1`, `layer2.0.downsample`, …).
public struct TorchLayoutWeights: Sendable {
    /// One tensor, float32 values in row-major order.
    public struct Tensor: Sendable {
        public var name: String
        public var shape: [Int]
        public var values: [Float]
    }

    /// The model file's header.
    public var manifest: ModelManifest
    /// Every tensor, in the network's order.
    public var tensors: [Tensor]

    /// Reads the model file at `url` (checking each tensor's checksum) and unpacks its weights: float16 files widen
    /// to float32, packed convolution weights `[kh·kw·in, out]` are transposed back, and Winograd weights
    /// `U = G g Gᵀ` are turned back into the 3×3 kernels `g = L U Lᵀ`, with `L` the exact left inverse of
    /// F(2×2, 3×3)'s `G` (rows 1, 2 − 3, 4 of `U`).
    public init(contentsOf url: URL) throws {
        let (manifest, handle, dataStart, _) = try ModelFile.open(url)
        defer { try? handle.close() }
        let reader = TensorReader(handle: handle, dataStart: dataStart, precision: manifest.precision, url: url)
        let stored = Dictionary(manifest.tensors.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func read(_ name: String, count: Int) throws -> [Float] {
            guard let tensor = stored[name] else { throw ClassifierError.missingTensor(name) }
            guard tensor.count == count else {
                throw ClassifierError.invalidModelFile("tensor \(name) holds \(tensor.count) values, not \(count)")
            }
            let bytes = try reader.read(tensor)
            switch manifest.precision {
            case .float32:
                return Array(bytes.bindMemory(to: Float.self))
            case .float16:
                return bytes.bindMemory(to: UInt16.self).map { Float(Float16(bitPattern: $0)) }
            }
        }
        let spec = NetworkSpec(architecture: manifest.architecture, baseWidth: manifest.baseWidth, classes: manifest.classes)
        var tensors: [Tensor] = []
        for conv in spec.allConvs {
            let (cin, cout, k) = (conv.inChannels, conv.outChannels, conv.kernel)
            var weight = [Float](repeating: 0, count: cout * cin * k * k)
            if stored["\(conv.name).winograd"] != nil {
                let u = try read("\(conv.name).winograd", count: 16 * cin * cout)
                for ci in 0..<cin {
                    for co in 0..<cout {
                        func at(_ y: Int, _ x: Int) -> Float { u[((y * 4 + x) * cin + ci) * cout + co] }
                        // Rows of L U: U's row 0, row 1 − row 2, row 3; then the same on the columns.
                        let rows: [(Int) -> Float] = [{ at(0, $0) }, { at(1, $0) - at(2, $0) }, { at(3, $0) }]
                        for (ky, row) in rows.enumerated() {
                            let kernel = [row(0), row(1) - row(2), row(3)]
                            for kx in 0..<3 { weight[((co * cin + ci) * 3 + ky) * 3 + kx] = kernel[kx] }
                        }
                    }
                }
            } else {
                let packed = try read("\(conv.name).weight", count: conv.reduction * cout)
                for ky in 0..<k {
                    for kx in 0..<k {
                        for ci in 0..<cin {
                            let row = ((ky * k + kx) * cin + ci) * cout
                            for co in 0..<cout { weight[((co * cin + ci) * k + ky) * k + kx] = packed[row + co] }
                        }
                    }
                }
            }
            tensors.append(Tensor(name: "\(conv.name).weight", shape: [cout, cin, k, k], values: weight))
            tensors.append(Tensor(name: "\(conv.name).bias", shape: [cout], values: try read("\(conv.name).bias", count: cout)))
        }
        let (features, classes) = (spec.features, spec.classes)
        let fc = try read("fc.weight", count: features * classes)
        var transposed = [Float](repeating: 0, count: fc.count)
        for f in 0..<features {
            for c in 0..<classes { transposed[c * features + f] = fc[f * classes + c] }
        }
        tensors.append(Tensor(name: "fc.weight", shape: [classes, features], values: transposed))
        tensors.append(Tensor(name: "fc.bias", shape: [classes], values: try read("fc.bias", count: classes)))
        self.manifest = manifest
        self.tensors = tensors
    }
}
