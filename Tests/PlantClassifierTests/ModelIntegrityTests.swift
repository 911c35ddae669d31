import Foundation
import PlantGuideCore
import Testing
@testable import PlantClassifier

/// The checksums, source and import time a model file records, and what loading does with them.
@Suite struct ModelIntegrityTests {
    @Test func checksumIsXXH64AsPublished() throws {
        // Reference values from the xxhash package (Python binding of the original C library).
        var long = Data((0..<768).map { UInt8($0 % 256) })
        long.append(Data("PlantGuide".utf8))
        let cases: [(Data, String)] = [
            (Data(), "ef46db3751d8e999"), (Data("a".utf8), "d24ec4f1a98c6e5b"), (Data("abc".utf8), "44bc2cf5ad770999"),
            (long, "d6b7de0bdcd1e163"),
        ]
        for (bytes, expected) in cases {
            #expect(bytes.withUnsafeBytes { ModelFile.checksum(of: $0) } == expected, "\(bytes.count) bytes")
        }
    }

    @Test(arguments: [WeightPrecision.float16, .float32])
    func importRecordsChecksumsSourceAndTime(precision: WeightPrecision) throws {
        let checkpoint = FixtureModels.url("tiny-resnet18.pth")
        let output = FixtureModels.temporaryFile("pgmodel")
        defer { FixtureModels.remove(output) }
        let importedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let written = try CheckpointImporter().importCheckpoint(
            at: checkpoint, options: .init(architecture: .resnet18, precision: precision), to: output, now: importedAt
        )
        let manifest = try ModelFile.manifest(at: output)
        #expect(manifest == written)
        #expect(manifest.hasChecksums)
        #expect(manifest.tensors.allSatisfy { $0.xxh64?.count == 16 })
        #expect(manifest.source == checkpoint.standardizedFileURL.path)
        #expect(manifest.importedAt == importedAt)
        #expect(manifest.sourceSHA256 == sha256Hex(try Data(contentsOf: checkpoint)))
        #expect(try ModelFile.verify(at: output) == .intact)
        // A download is recorded by the URL it came from.
        let downloaded = try CheckpointImporter().importCheckpoint(
            at: checkpoint, options: .init(architecture: .resnet18, precision: precision, source: "https://example.org/r18.tar"),
            to: output
        )
        #expect(downloaded.source == "https://example.org/r18.tar")
    }

    @Test(arguments: [ConvolutionBackend.blas, .oneDNN], [
        "conv1.weight", "layer1.1.conv2.winograd", "layer2.0.downsample.weight", "layer4.1.conv1.bias", "fc.weight",
    ])
    func aChangedWeightIsRefusedNamingTheFileAndTheFix(backend: ConvolutionBackend, tensor: String) throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        #expect(try ModelFile.manifest(at: file).tensors.contains { $0.name == tensor })
        _ = try Classifier(contentsOf: file, threads: 1, backend: backend)
        try FixtureModels.tamper(file, tensor: tensor)

        let error = #expect(throws: ClassifierError.self) { try Classifier(contentsOf: file, threads: 1, backend: backend) }
        #expect(error == .modelFileChanged(path: file.path, tensor: tensor))
        let message = "\(try #require(error))"
        #expect(message.contains(file.path))
        #expect(message.contains("Import the checkpoint again"))
        #expect(throws: ClassifierError.modelFileChanged(path: file.path, tensor: tensor)) { try ModelFile.verify(at: file) }
        // The header alone is still readable, so `model list` can show the file.
        #expect(try ModelFile.manifest(at: file).architecture == .resnet18)
    }

    @Test func filesWithoutTheNewFieldsLoadAsBeforeWithUnknownFacts() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float32)
        defer { FixtureModels.remove(file) }
        let old = FixtureModels.temporaryFile("pgmodel")
        defer { FixtureModels.remove(old) }
        try FixtureModels.writeWithoutNewFields(file, to: old)
        let header = String(decoding: try Data(contentsOf: old).prefix(4096), as: UTF8.self)
        #expect(!header.contains("xxh64") && !header.contains("importedAt") && header.contains("sourceSHA256"))

        let manifest = try ModelFile.manifest(at: old)
        #expect(manifest.source == nil)
        #expect(manifest.importedAt == nil)
        #expect(!manifest.hasChecksums)
        #expect(manifest.sourceName == "tiny-resnet18.pth")
        #expect(try ModelFile.verify(at: old) == .unknown)
        // The same weights give the same logits as the file with checksums.
        let input = try FixtureModels.inputs()[0]
        let size = 64
        let current = try Classifier(contentsOf: file, threads: 1).logits(input, height: size, width: size)
        let loaded = try Classifier(contentsOf: old, threads: 1).logits(input, height: size, width: size)
        #expect(loaded == current)
    }
}
