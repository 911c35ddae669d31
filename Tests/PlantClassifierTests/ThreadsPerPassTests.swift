import CPlantDNNL
import Foundation
import Testing
@_spi(Benchmark) @testable import PlantClassifier

/// A forward pass drops to one thread when other work leaves it no idle core, and a oneDNN layer created for two
/// threads then runs on a primitive split for one, with the same results.
@Suite struct ThreadsPerPassTests {
    /// Busy processes beside us: one thread; the idle cores counted leave them out. (Only where the process may run on
    /// every CPU: the count is the whole machine's.)
    @Test(.enabled(if: pg_idle_cores(2) >= 0)) func oneThreadBesideBusyProcesses() throws {
        #if os(Linux)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var busy: [Process] = []
        defer {
            // SIGKILL: a child started from the test runner may inherit SIGTERM blocked.
            for process in busy {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        for _ in 0..<max(1, cores - 1) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/yes")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            busy.append(process)
        }
        // The children are runnable from their first instruction; give the scheduler a moment to count them.
        var idle = cores, threads = 2
        for _ in 0..<200 where idle > cores - busy.count || threads != 1 {
            usleep(10_000)
            idle = Int(pg_idle_cores(2))
            threads = Classifier.threadsForPass(2)
        }
        #expect(idle >= 0 && idle <= cores - busy.count)
        #expect(threads == 1)
        // One thread asked for stays one thread.
        #expect(Classifier.threadsForPass(1) == 1)
        #endif
    }

    /// A layer on oneDNN (3×3 stride 2, and a 1×1 one) created for two threads, run with one: the second primitive is
    /// built and gives what the first gives.
    @Test(arguments: [(3, 2, 1), (1, 1, 0)], [8, 16])
    func oneThreadRunsOnItsOwnPrimitive(_ shape: (kernel: Int, stride: Int, padding: Int), block: Int) throws {
        #if arch(x86_64) && os(Linux)
        try #require(DNNLConvolutions.isAvailable, "oneDNN is installed by scripts/bootstrap")
        let convolutions = DNNLConvolutions(layout: .blocked(block))
        try #require(convolutions.channelBlock == block)
        let conv = ConvSpec(
            convName: "conv", normName: "bn", name: "conv", inChannels: 24, outChannels: 40, kernel: shape.kernel,
            stride: shape.stride, padding: shape.padding
        )
        #expect(!convolutions.usesOwnKernel(conv, height: 20, half: false))
        var random = SplitMix(seed: 7)
        let weights = (0..<(shape.kernel * shape.kernel * 24 * 40)).map { _ in Float(random.normal() * 0.2) }
        let bias = (0..<40).map { _ in Float(random.normal() * 0.1) }
        #expect(convolutions.add(
            conv, height: 20, width: 20, weights: weights, bias: bias, relu: true, accumulate: false, half: false, readsImage: false,
            threads: 2
        ))
        let features = FeatureShape(batch: 1, height: 20, width: 20, channels: 24)
        let input = WinogradKernelTests.blockedMap(features, block: block, random: &random)
        let side = (20 + 2 * shape.padding - shape.kernel) / shape.stride + 1
        let outputCount = convolutions.storedChannels(40) * side * side
        var scratch = [Float](repeating: 0, count: 1)
        func run(threads: Int) -> [Float] {
            var output = [Float](repeating: .nan, count: outputCount)
            let ran = input.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    convolutions.run(
                        conv, source.baseAddress!, features, into: target.baseAddress!, scratch: &scratch, scratchCapacity: 1,
                        threads: threads
                    )
                }
            }
            #expect(ran)
            return output
        }
        let two = run(threads: 2)
        #expect(!convolutions.runsSingle(conv))
        let one = run(threads: 1)
        #expect(convolutions.runsSingle(conv))
        #expect(!one.contains { $0.isNaN })
        let scale = two.map { abs($0) }.max() ?? 0
        #expect(scale > 0.1)
        let worst = zip(one, two).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst <= 1e-6 * scale, "largest difference \(worst) of \(scale)")
        #endif
    }
}
