import Foundation
import Testing
@_spi(Benchmark) @testable import PlantClassifier

/// oneDNN's maps in its blocked order (nChw8c, nChw16c) against channels last and PlantGuide's own kernels,
/// on models whose channel counts are not whole blocks, so the padding of blocks is exercised too.
@Suite struct LayoutTests {
    /// The block is ours, from the CPU's vector width as Linux reports it (16 with AVX-512F, 8 with AVX2 and FMA), not
    /// whatever oneDNN would prefer; every layout can be forced.
    @Test func theChannelBlockFollowsTheCPU() throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        let expected = flags.contains("avx512f") ? 16 : flags.contains("avx2") && flags.contains("fma") ? 8 : 0
        #expect(DNNLConvolutions().channelBlock == expected, "CPU flags: avx512f \(flags.contains("avx512f")), avx2 \(flags.contains("avx2"))")
        #expect(DNNLLayout.preferred.channelBlock == expected && DNNLLayout.preferred.ownKernels && DNNLLayout.preferred.measured)
        #expect(DNNLConvolutions().measured == DNNLConvolutions.cpuRunsOwnKernels)
        #expect(!DNNLConvolutions(layout: .blocked(expected)).measured)
        #expect(DNNLConvolutions(layout: .channelsLast).channelBlock == 0)
        for block in [8, 16] {
            #expect(DNNLConvolutions(layout: .blocked(block)).channelBlock == block)
            #expect(DNNLConvolutions(layout: .blocked(block)).ownKernels == DNNLConvolutions.cpuRunsOwnKernels)
            #expect(!DNNLConvolutions(layout: .blocked(block, ownKernels: false)).ownKernels)
        }
        // Anything but 8 or 16 is channels last.
        #expect(DNNLConvolutions(layout: .blocked(4)).channelBlock == 0)
        #endif
    }

    /// A random-weight ResNet of an odd width gives the same logits and embeddings for a batch of two on every engine:
    /// the stem's 5 or 3 channels pad a block, and with 16-channel blocks (AVX-512) ResNet18's 40 or 24 features do too.
    @Test(arguments: [ResNetArchitecture.resnet18, .resnet50], [5, 3])
    func everyEngineAgreesOnAnOddWidthModel(architecture: ResNetArchitecture, width: Int) throws {
        let file = try Self.randomModel(architecture, width: width, classes: 11, inputSize: 64)
        defer { FixtureModels.remove(file) }
        var random = SplitMix(seed: 7)
        let input = (0..<(2 * 3 * 64 * 64)).map { _ in Float(random.normal()) }

        let reference = try Classifier(contentsOf: file, threads: 2, widenAtLoadBelowBytes: .max, backend: .blas)
        let expected = try reference.outputs(input, batch: 2, height: 64, width: 64)
        let scale = max(1, expected.logits.map { abs($0) }.max() ?? 1)
        let layouts = ParityTests.EnginePath.all.filter { $0.backend == .oneDNN }.map(\.layout)
        #if arch(x86_64) && os(Linux)
        #expect(layouts == [.channelsLast, .blocked(8), .blocked(16)])
        #endif
        // Blocked maps run stage one's 16×16 3×3 layers on the Winograd kernels; the direct kernels are checked too.
        for layout in layouts + layouts.filter(\.ownKernels).map({ .blocked($0.channelBlock, ownKernels: false) }) {
            let classifier = try Classifier(contentsOf: file, threads: 2, widenAtLoadBelowBytes: .max, backend: .oneDNN, layout: layout)
            #expect(classifier.backend == .oneDNN)
            let output = try classifier.outputs(input, batch: 2, height: 64, width: 64)
            try #require(output.logits.count == expected.logits.count)
            let worst = zip(output.logits, expected.logits).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-4 * scale, "\(layout): largest logit difference \(worst) of \(scale)")
            try #require(output.embeddings.count == 2)
            for (embedding, wanted) in zip(output.embeddings, expected.embeddings) {
                #expect(embedding.count == reference.embeddingSize)
                let apart = zip(embedding, wanted).map { abs($0 - $1) }.max() ?? .infinity
                #expect(apart < 1e-5, "\(layout): largest embedding difference \(apart)")
            }
            // The same images one at a time: the padded channels of one image never reach the other's.
            let second = try classifier.outputs(Array(input[(3 * 64 * 64)...]), height: 64, width: 64)
            let alone = zip(second.logits, expected.logits[reference.manifest.classes...]).map { abs($0 - $1) }.max() ?? .infinity
            #expect(alone <= 1e-4 * scale, "\(layout): second image alone differs by \(alone)")
        }
    }

    /// Writes a torchvision-shaped random-weight `architecture` of `width` through the checkpoint importer's
    /// folding and packing into a temporary model file.
    static func randomModel(_ architecture: ResNetArchitecture, width: Int, classes: Int, inputSize: Int) throws -> URL {
        let spec = NetworkSpec(architecture: architecture, baseWidth: width, classes: classes)
        var random = SplitMix(seed: UInt64(width * 1000 + architecture.rawValue.count))
        var tensors: [String: (shape: [Int], values: [Float])] = [:]
        func values(_ count: Int, _ make: () -> Double) -> [Float] { (0..<count).map { _ in Float(make()) } }
        for conv in spec.allConvs {
            let fanIn = Double(conv.inChannels * conv.kernel * conv.kernel)
            let shape = [conv.outChannels, conv.inChannels, conv.kernel, conv.kernel]
            tensors["\(conv.convName).weight"] = (shape, values(shape.reduce(1, *)) { random.normal() * (2 / fanIn).squareRoot() })
            let n = conv.outChannels
            tensors["\(conv.normName).weight"] = ([n], values(n) { 0.5 + random.uniform() })
            tensors["\(conv.normName).bias"] = ([n], values(n) { random.normal() * 0.1 })
            tensors["\(conv.normName).running_mean"] = ([n], values(n) { random.normal() * 0.1 })
            tensors["\(conv.normName).running_var"] = ([n], values(n) { 0.5 + random.uniform() })
        }
        tensors["fc.weight"] = ([classes, spec.features], values(classes * spec.features) { random.normal() / Double(spec.features).squareRoot() })
        tensors["fc.bias"] = ([classes], values(classes) { random.normal() * 0.1 })
        let input = ModelInputSettings(size: inputSize, resize: inputSize * 8 / 7, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225])
        let options = CheckpointImporter.Options(architecture: architecture, labels: "index", precision: .float32, input: input)
        let (manifest, packed) = try CheckpointImporter().pack(tensors, options: options, sha256: "", sourceName: "random")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("layout-\(UUID().uuidString).pgmodel")
        try ModelFile.write(manifest: manifest, tensors: packed, to: url)
        return url
    }
}

extension SplitMix {
    /// In [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
