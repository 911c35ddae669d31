import Foundation
import Testing
@testable import PlantClassifier

/// A model file's weights unpacked into PyTorch's layout (for the Core ML export) pack back into exactly the tensors the
/// file holds: transposed convolutions, Winograd kernels recovered from `U = G g Gᵀ`, the transposed classifier.
@Suite struct TorchLayoutExportTests {
    @Test(arguments: [ResNetArchitecture.resnet18, .resnet50])
    func unpackedWeightsPackBackIntoTheFile(_ architecture: ResNetArchitecture) throws {
        let (url, _) = try FixtureModels.importModel(architecture, precision: .float32)
        defer { try? FileManager.default.removeItem(at: url) }
        let weights = try TorchLayoutWeights(contentsOf: url)
        let manifest = weights.manifest
        let spec = NetworkSpec(architecture: architecture, baseWidth: manifest.baseWidth, classes: manifest.classes)
        let winograd = spec.winogradConvs(inputSize: manifest.input.size)
        #expect(!winograd.isEmpty, "the fixture has Winograd convolutions at its input size")
        let unpacked = Dictionary(uniqueKeysWithValues: weights.tensors.map { ($0.name, $0) })
        #expect(weights.tensors.count == spec.allConvs.count * 2 + 2)
        #expect(unpacked["conv1.weight"]?.shape == [manifest.baseWidth, 3, 7, 7])
        #expect(unpacked["fc.weight"]?.shape == [manifest.classes, spec.features])

        let (_, handle, dataStart, _) = try ModelFile.open(url)
        defer { try? handle.close() }
        let reader = TensorReader(handle: handle, dataStart: dataStart, precision: manifest.precision, url: url)
        func stored(_ name: String) throws -> [Float] {
            let tensor = try #require(manifest.tensors.first { $0.name == name })
            return Array(try reader.read(tensor).bindMemory(to: Float.self))
        }
        func expectClose(_ mine: [Float], _ theirs: [Float], _ what: String) {
            #expect(mine.count == theirs.count, "\(what): sizes")
            let scale = theirs.map(abs).max() ?? 1
            let worst = zip(mine, theirs).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 1e-5 * max(scale, 1), "\(what): differs by \(worst)")
        }
        for conv in spec.allConvs {
            let weight = try #require(unpacked["\(conv.name).weight"])
            let (cin, cout, k) = (conv.inChannels, conv.outChannels, conv.kernel)
            #expect(weight.shape == [cout, cin, k, k])
            // Packed again as the engine keeps it: [(ky·k + kx)·cin + ci, co].
            var packed = [Float](repeating: 0, count: k * k * cin * cout)
            for co in 0..<cout {
                for ci in 0..<cin {
                    for ky in 0..<k {
                        for kx in 0..<k { packed[((ky * k + kx) * cin + ci) * cout + co] = weight.values[((co * cin + ci) * k + ky) * k + kx] }
                    }
                }
            }
            if winograd.contains(conv.name) {
                let transformed = Winograd.transformWeights(packed, inChannels: cin, outChannels: cout)
                expectClose(transformed, try stored("\(conv.name).winograd"), "\(conv.name) (Winograd)")
            } else {
                expectClose(packed, try stored("\(conv.name).weight"), conv.name)
            }
            expectClose(try #require(unpacked["\(conv.name).bias"]).values, try stored("\(conv.name).bias"), "\(conv.name).bias")
        }
        let fc = try #require(unpacked["fc.weight"])
        var back = [Float](repeating: 0, count: fc.values.count)
        for c in 0..<manifest.classes {
            for f in 0..<spec.features { back[f * manifest.classes + c] = fc.values[c * spec.features + f] }
        }
        expectClose(back, try stored("fc.weight"), "fc.weight")
    }

    @Test func aChangedFileIsRefused() throws {
        let (url, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = try Data(contentsOf: url)
        // A byte inside the classifier's weights (the middle of the file), not the padding at its end.
        bytes[bytes.count / 2] ^= 0x5A
        try bytes.write(to: url)
        #expect(throws: ClassifierError.self) { _ = try TorchLayoutWeights(contentsOf: url) }
    }
}
