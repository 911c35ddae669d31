import Foundation
import Testing
@testable import PlantClassifier

/// The checkpoints, inputs and PyTorch logits written by scripts/fixtures/classifier_checkpoints.py.
enum FixtureModels {
    struct Expected: Decodable {
        struct Model: Decodable {
            var file: String
            var classes: Int
            var width: Int
            var wrapped: Bool
            var logits: [[Float]]
            var tensors: [[Tensor]]

            enum Tensor: Decodable {
                case name(String)
                case shape([Int])

                init(from decoder: any Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let name = try? container.decode(String.self) { self = .name(name) } else { self = .shape(try container.decode([Int].self)) }
                }
            }

            /// (name, shape) pairs of the unwrapped, unprefixed state dict.
            var tensorList: [(String, [Int])] {
                tensors.compactMap { pair in
                    guard pair.count == 2, case .name(let name) = pair[0], case .shape(let shape) = pair[1] else { return nil }
                    return (name, shape)
                }
            }
        }

        var inputShape: [Int]
        var models: [String: Model]
    }

    static let folder: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    static func expected() throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: url("expected.json")))
    }

    /// The two fixture inputs, NCHW float32.
    static func inputs() throws -> [[Float]] {
        let data = try Data(contentsOf: url("inputs.f32"))
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let half = all.count / 2
        return [Array(all[..<half]), Array(all[half...])]
    }

    static func labels(for model: Expected.Model) -> String { model.classes == 1081 ? "plantnet300k" : "index" }

    /// Imports `architecture`'s fixture into a temporary model file.
    static func importModel(_ architecture: ResNetArchitecture, precision: WeightPrecision) throws -> (URL, Expected.Model) {
        let expected = try expected()
        guard let model = expected.models[architecture.rawValue] else { throw FixtureError.missing(architecture.rawValue) }
        let output = temporaryFile("pgmodel")
        try CheckpointImporter().importCheckpoint(
            at: url(model.file),
            options: .init(architecture: architecture, labels: labels(for: model), precision: precision,
                           input: ModelInputSettings(size: 64, resize: 73, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225])),
            to: output
        )
        return (output, model)
    }

    /// Rewrites the model file at `url` as PlantGuide wrote it before it recorded tensor checksums, the
    /// checkpoint's source and the import time: the same weights under a header without those fields.
    static func writeWithoutNewFields(_ url: URL, to destination: URL) throws {
        let data = try Data(contentsOf: url)
        let headerLength = Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) })
        let dataStart = (16 + headerLength + 63) / 64 * 64
        var header = try #require(try JSONSerialization.jsonObject(with: data[16..<(16 + headerLength)]) as? [String: Any])
        header["source"] = nil
        header["importedAt"] = nil
        let tensors = try #require(header["tensors"] as? [[String: Any]])
        header["tensors"] = tensors.map { tensor in tensor.filter { $0.key != "xxh64" } }
        let newHeader = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        var file = Data(data.prefix(12))
        withUnsafeBytes(of: UInt32(newHeader.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(newHeader)
        file.append(Data(count: (64 - file.count % 64) % 64))
        file.append(data[dataStart...])
        try file.write(to: destination)
    }

    /// Flips one byte inside the stored bytes of tensor `name` of the model file at `url`.
    static func tamper(_ url: URL, tensor name: String) throws {
        let (manifest, handle, dataStart, _) = try ModelFile.open(url)
        try handle.close()
        let tensor = try #require(manifest.tensors.first { $0.name == name })
        var data = try Data(contentsOf: url)
        let position = Int(dataStart) + tensor.offset + tensor.count  // inside the tensor at either precision
        data[position] ^= 0x01
        try data.write(to: url)
    }

    /// Removes temporary files made by a test, and for each the layer plan a load may have written beside it (see
    /// `LayerPlan`): removing only the model would leave the plan behind in the temporary folder.
    static func remove(_ urls: URL...) {
        for url in urls {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: LayerPlan.url(for: url))
        }
    }

    static func temporaryFile(_ pathExtension: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-\(UUID().uuidString).\(pathExtension)")
    }

    enum FixtureError: Error { case missing(String) }
}

/// Indices of the `count` largest values, largest first.
func topIndices(_ values: [Float], _ count: Int) -> [Int] {
    Array(values.indices.sorted { values[$0] > values[$1] }.prefix(count))
}
