import PlantGuideCore
import Foundation
import Testing
@testable import PlantClassifier

@Suite struct CheckpointTests {
    @Test(arguments: ["resnet18", "resnet34", "resnet50"])
    func inspectListsTensorsAsStored(name: String) throws {
        let model = try #require(try FixtureModels.expected().models[name])
        let checkpoint = try TorchCheckpoint(contentsOf: FixtureModels.url(model.file))
        let prefix = model.wrapped ? "module." : ""
        #expect(checkpoint.tensors.map(\.name) == model.tensorList.map { prefix + $0.0 })
        #expect(checkpoint.tensors.map(\.shape) == model.tensorList.map(\.1))
        #expect(checkpoint.tensors.first { $0.name.hasSuffix("num_batches_tracked") }?.dtype == .int64)
        #expect(checkpoint.tensors.first?.dtype == .float32)
        #expect(checkpoint.wrapperKeys == (model.wrapped ? ["epoch", "model", "optimizer"] : []))
    }

    @Test func maliciousPickleIsRefused() throws {
        #expect(throws: ClassifierError.forbiddenGlobal(module: "os", name: "system")) {
            try TorchCheckpoint(contentsOf: FixtureModels.url("malicious.pth"))
        }
        let error = ClassifierError.forbiddenGlobal(module: "os", name: "system")
        #expect(error.description.contains("os.system"))
    }

    /// Hand-written pickles: every global outside the allow-list is refused, however it is spelled.
    @Test(arguments: [
        ([0x80, 0x02] + Array("cbuiltins\neval\n".utf8) + [0x2E], "builtins", "eval"),
        ([0x80, 0x04, 0x8C, 0x05] + Array("posix".utf8) + [0x8C, 0x06] + Array("system".utf8) + [0x93, 0x2E], "posix", "system"),
        ([0x80, 0x02] + Array("ctorch\nload\n".utf8) + [0x2E], "torch", "load"),
        ([0x80, 0x02] + Array("ctorch._utils\n_rebuild_qtensor\n".utf8) + [0x2E], "torch._utils", "_rebuild_qtensor"),
    ] as [([UInt8], String, String)])
    func forbiddenGlobalsAreRefused(pickle: [UInt8], module: String, name: String) {
        #expect(throws: ClassifierError.forbiddenGlobal(module: module, name: name)) {
            try Unpickler.load(Data(pickle))
        }
    }

    @Test(arguments: [
        [0x80, 0x02, 0x7D],  // no STOP
        [0x80, 0x02, 0x2E],  // STOP on an empty stack
        [0x80, 0x02, 0x7D, 0x75, 0x2E],  // SETITEMS without MARK
        [0x80, 0x02, 0x68, 0x05, 0x2E],  // BINGET of an unset memo
        [0x80, 0x02, 0x69, 0x2E],  // INST: not supported
    ] as [[UInt8]])
    func malformedPicklesAreErrors(pickle: [UInt8]) {
        #expect(throws: ClassifierError.self) { try Unpickler.load(Data(pickle)) }
    }

    @Test func unpicklerReadsPlainData() throws {
        // {'a': [1, -2, 3.5, True, None], 'b': (300, 'x')} at protocol 2
        let pickle: [UInt8] = [
            0x80, 0x02, 0x7D, 0x71, 0x00, 0x28, 0x58, 0x01, 0, 0, 0, 0x61, 0x5D, 0x28, 0x4B, 0x01, 0x4A, 0xFE, 0xFF, 0xFF, 0xFF,
            0x47, 0x40, 0x0C, 0, 0, 0, 0, 0, 0, 0x88, 0x4E, 0x65, 0x58, 0x01, 0, 0, 0, 0x62, 0x4D, 0x2C, 0x01, 0x8C, 0x01, 0x78,
            0x86, 0x75, 0x2E,
        ]
        guard case .dict(let dict) = try Unpickler.load(Data(pickle)) else {
            Issue.record("not a dict")
            return
        }
        guard case .list(let list)? = dict.value(forKey: "a") else {
            Issue.record("no list")
            return
        }
        #expect(list.items.count == 5)
        if case .int(let value) = list.items[1] { #expect(value == -2) } else { Issue.record("not an int") }
        if case .float(let value) = list.items[2] { #expect(value == 3.5) } else { Issue.record("not a float") }
        if case .tuple(let items)? = dict.value(forKey: "b"), case .int(let value) = items[0] {
            #expect(value == 300)
        } else {
            Issue.record("no tuple")
        }
    }

    @Test func damagedArchivesAreErrors() throws {
        let original = try Data(contentsOf: FixtureModels.url("tiny-resnet50.pth"))
        // Not a zip at all.
        #expect(throws: ClassifierError.self) { try TorchCheckpoint(data: Data("hello".utf8)) }
        // Cut in half: the directory at the end is gone.
        #expect(throws: ClassifierError.self) { try TorchCheckpoint(data: original.prefix(original.count / 2)) }
        // One flipped byte inside the pickle: the CRC catches it.
        let checkpoint = try ZipArchive(data: original)
        let pickle = try #require(checkpoint.entries.first { $0.name.hasSuffix("data.pkl") })
        var damaged = original
        damaged[pickle.localHeaderOffset + 30 + pickle.name.utf8.count + 200] ^= 0xFF
        #expect(throws: ClassifierError.self) { try TorchCheckpoint(data: damaged) }
    }

    @Test func deflatedEntriesAreInflated() throws {
        // The resnet34 fixture was re-packed with deflate.
        let archive = try ZipArchive(data: Data(contentsOf: FixtureModels.url("tiny-resnet34.pth")))
        #expect(archive.entries.contains { $0.method == 8 })
        let checkpoint = try TorchCheckpoint(contentsOf: FixtureModels.url("tiny-resnet34.pth"))
        #expect(try checkpoint.floatTensors()["fc.weight"]?.values.count == 10 * 32)
    }

    @Test func wrongArchitectureIsReported() throws {
        let output = FixtureModels.temporaryFile("pgmodel")
        #expect(throws: ClassifierError.shapeMismatch(name: "layer1.0.conv1.weight", expected: [4, 4, 1, 1], found: [4, 4, 3, 3])) {
            try CheckpointImporter().importCheckpoint(
                at: FixtureModels.url("tiny-resnet18.pth"), options: .init(architecture: .resnet50), to: output
            )
        }
        #expect(throws: ClassifierError.missingTensor("layer1.2.conv1.weight")) {
            try CheckpointImporter().importCheckpoint(
                at: FixtureModels.url("tiny-resnet18.pth"), options: .init(architecture: .resnet34), to: output
            )
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func labelSetMustFitTheClassCount() {
        let output = FixtureModels.temporaryFile("pgmodel")
        #expect(throws: ClassifierError.self) {
            try CheckpointImporter().importCheckpoint(
                at: FixtureModels.url("tiny-resnet50.pth"), options: .init(architecture: .resnet50, labels: "plantnet300k"), to: output
            )
        }
    }

    @Test func importRecordsTheSource() throws {
        let (file, _) = try FixtureModels.importModel(.resnet18, precision: .float16)
        defer { FixtureModels.remove(file) }
        let manifest = try ModelFile.manifest(at: file)
        let source = try Data(contentsOf: FixtureModels.url("tiny-resnet18.pth"))
        #expect(manifest.sourceSHA256 == sha256Hex(source))
        #expect(manifest.sourceName == "tiny-resnet18.pth")
        #expect(manifest.architecture == .resnet18)
        #expect(manifest.labels == "plantnet300k")
        #expect(manifest.input.size == 64)
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func sha256MatchesKnownDigests(text: String, digest: String) {
        #expect(sha256Hex(Data(text.utf8)) == digest)
    }
}
