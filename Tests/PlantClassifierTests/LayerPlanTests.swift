import Foundation
import Testing
@_spi(Benchmark) @testable import PlantClassifier

/// Each layer our own kernels could run is timed against oneDNN's on first load, runs on the faster, and the choice is
/// remembered beside the model file for this CPU, threads and file.
@Suite struct LayerPlanTests {
    /// A random-weight ResNet18 of width 8 at 64 px in a folder of its own (the plan is written beside it).
    static func model() throws -> (folder: URL, file: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let made = try LayoutTests.randomModel(.resnet18, width: 8, classes: 7, inputSize: 64)
        let file = folder.appendingPathComponent("model.pgmodel")
        try FileManager.default.moveItem(at: made, to: file)
        return (folder, file)
    }

    static func input() -> [Float] {
        var random = SplitMix(seed: 11)
        return (0..<(3 * 64 * 64)).map { _ in Float(random.normal()) }
    }

    @Test func theFirstLoadTimesEachCandidateAndTheNextRemembers() throws {
        try #require(DNNLConvolutions.cpuRunsOwnKernels, "oneDNN and a CPU with AVX2, FMA and F16C")
        let (folder, file) = try Self.model()
        defer { FixtureModels.remove(folder) }
        let planURL = LayerPlan.url(for: file)
        #expect(planURL.lastPathComponent == "model.pgmodel.plan.json")
        #expect(!FileManager.default.fileExists(atPath: planURL.path))

        let first = try Classifier(contentsOf: file, threads: 2)
        let saved = try JSONDecoder().decode(LayerPlan.self, from: Data(contentsOf: planURL))
        #expect(saved.cpu == CPUInfo.current.signature && saved.threads == 2 && saved.channelBlock == DNNLConvolutions.machineChannelBlock)
        // Every convolution has a choice; those an own kernel can run (3×3 stride 1 on maps of 7 rows or more: stage one's
        // 16×16 and stage two's 8×8) were timed on both, and the faster won.
        let layers = first.plan
        #expect(layers.count == 20)
        #expect(Set(saved.layers.keys) == Set(layers.map(\.name)))
        let timed = layers.filter { !$0.milliseconds.isEmpty }
        #expect(timed.map(\.name) == layers.filter { $0.kernel == 3 && $0.stride == 1 && $0.mapSide >= 7 }.map(\.name))
        #expect(timed.count == 7)
        for layer in timed {
            // Our AVX2 kernel and oneDNN's everywhere, our AVX-512 one where the CPU has AVX-512F.
            let expected = ["own", "onednn"] + (DNNLConvolutions.cpuRunsAVX512Kernels ? ["own-avx512"] : [])
            #expect(Set(layer.milliseconds.keys) == Set(expected))
            #expect(layer.milliseconds.values.allSatisfy { $0 > 0 })
            let fastest = try #require(layer.milliseconds.min { $0.value < $1.value }?.value)
            let winner = try #require(saved.layers[layer.name]?.engine)
            #expect(layer.milliseconds[winner.rawValue] == fastest, "\(layer.name): \(layer.milliseconds)")
            // F(4×4) tiles on stage one's 16×16 maps, F(2×2) on stage two's 8×8 ones (float32 weights).
            let tile = layer.mapSide > 14 ? 4 : 2
            let name = switch winner {
            case .oneDNN: "oneDNN"
            case .own: "Winograd F(\(tile)×\(tile), 3×3)"
            case .ownAVX512: "Winograd F(\(tile)×\(tile), 3×3) AVX-512"
            }
            #expect(layer.kernelName == name)
        }
        #expect(layers.filter { $0.milliseconds.isEmpty }.allSatisfy { $0.kernelName == "oneDNN" })

        // The second load takes the file's choices as they are (and leaves the file alone). A plan that sends every
        // layer to oneDNN, in the same file, is obeyed: nothing is timed again.
        var forced = saved
        for name in forced.layers.keys { forced.layers[name] = LayerChoice(engine: .oneDNN, milliseconds: [:]) }
        #expect(forced.save(beside: file))
        let second = try Classifier(contentsOf: file, threads: 2)
        #expect(second.plan.allSatisfy { $0.kernelName == "oneDNN" && $0.milliseconds.isEmpty })
        #expect(try JSONDecoder().decode(LayerPlan.self, from: Data(contentsOf: planURL)) == forced)

        // Both give the same answers as the BLAS path.
        let reference = try Classifier(contentsOf: file, threads: 2, widenAtLoadBelowBytes: .max, backend: .blas)
        let expected = try reference.logits(Self.input(), height: 64, width: 64)
        let scale = max(1, expected.map { abs($0) }.max() ?? 1)
        for classifier in [first, second] {
            let logits = try classifier.logits(Self.input(), height: 64, width: 64)
            let worst = zip(logits, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= 1e-4 * scale)
        }
    }

    /// A plan for another CPU, other threads or another file, or one that is not JSON, is measured again and replaced.
    @Test func aPlanThatDoesNotFitIsMeasuredAgain() throws {
        try #require(DNNLConvolutions.cpuRunsOwnKernels, "oneDNN and a CPU with AVX2, FMA and F16C")
        let (folder, file) = try Self.model()
        defer { FixtureModels.remove(folder) }
        let planURL = LayerPlan.url(for: file)
        _ = try Classifier(contentsOf: file, threads: 2)
        let measured = try JSONDecoder().decode(LayerPlan.self, from: Data(contentsOf: planURL))
        var forced = measured
        for name in forced.layers.keys { forced.layers[name] = LayerChoice(engine: .oneDNN, milliseconds: [:]) }

        var otherCPU = forced
        otherCPU.cpu = "Some Other CPU avx2 fma f16c"
        var otherThreads = forced
        otherThreads.threads = 3
        var otherFile = forced
        otherFile.model = "1 bytes, modified 0, , float32"
        for stale in [otherCPU, otherThreads, otherFile] {
            #expect(stale.save(beside: file))
            let classifier = try Classifier(contentsOf: file, threads: 2)
            #expect(classifier.plan.contains { !$0.milliseconds.isEmpty }, "a stale plan was obeyed")
            let replaced = try JSONDecoder().decode(LayerPlan.self, from: Data(contentsOf: planURL))
            #expect(replaced.cpu == CPUInfo.current.signature && replaced.threads == 2 && replaced.model == measured.model)
        }
        try Data("{ not json".utf8).write(to: planURL)
        let classifier = try Classifier(contentsOf: file, threads: 2)
        #expect(classifier.plan.contains { !$0.milliseconds.isEmpty })
        #expect((try? JSONDecoder().decode(LayerPlan.self, from: Data(contentsOf: planURL))) != nil)
    }

    /// Layouts that say what runs (the tests' and the benchmark's) neither time nor write a plan.
    @Test func forcedLayoutsWriteNoPlan() throws {
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        let (folder, file) = try Self.model()
        defer { FixtureModels.remove(folder) }
        for layout in [DNNLLayout.channelsLast, .blocked(8), .blocked(16, ownKernels: false)] {
            let classifier = try Classifier(contentsOf: file, threads: 2, backend: .oneDNN, layout: layout)
            #expect(classifier.plan.allSatisfy { $0.milliseconds.isEmpty })
        }
        #expect(!FileManager.default.fileExists(atPath: LayerPlan.url(for: file).path))
    }
}
