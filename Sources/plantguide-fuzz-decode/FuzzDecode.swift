// libFuzzer target over ImageDecoder.decode (and what runs on its output).
//
// Run it with scripts/fuzz/run-decode-fuzzer [SECONDS].
//
// A normal `swift build` compiles this as a small program that replays files through the same code
// (handy to re-run a crash input without the sanitizers). The fuzzer build defines PLANTGUIDE_FUZZ,
// which swaps the entry point for one that hands control to libFuzzer's driver:
//
//   swift build -c release --scratch-path .build-fuzz --product plantguide-fuzz-decode \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPLANTGUIDE_FUZZ -Xcc -fsanitize=fuzzer-no-link,address
//   .build-fuzz/release/plantguide-fuzz-decode -max_total_time=600 -dict=scripts/fuzz/images.dict fuzz-corpus
import Foundation
import PlantImaging

enum FuzzDecode {
    /// Budgets small enough that every input finishes quickly, large enough to reach real decoding.
    static let decoder = ImageDecoder(
        limits: DecodeLimits(minimumShortSide: 1, maximumPixels: 4_000_000, maximumBytes: 10_000_000), heifThreads: 1)
    static let preprocessor = Preprocessor(spec: ModelInputSpec(resize: 32, crop: 24, mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25]))

    static func run(_ data: Data) {
        guard let decoded = try? decoder.decode(data) else { return }
        let image = decoded.image
        // Invariants the rest of the app relies on.
        if image.pixels.count != image.width * image.height * 3 || !(1...8).contains(decoded.orientation) {
            fatalError("decoder returned an inconsistent image")
        }
        _ = preprocessor.tensor(from: image)
        _ = PerceptualHash.dHash(image)
        _ = try? decoder.decode(data, minimumShortSide: 8)
    }
}

#if PLANTGUIDE_FUZZ
// libFuzzer's driver, called from our own entry point: SwiftPM links every executable target with
// `main` aliased to `<target>_main`, so libFuzzer's `main` cannot be used directly.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    FuzzDecode.run(Data(bytes: start, count: count))
    return 0
}

@_cdecl("plantguide_fuzz_decode_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { start, size in fuzzTestOneInput(start, size) }
}
#else
@main
enum ReplayInputs {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            print("usage: plantguide-fuzz-decode FILE...  (replays inputs; see the source for the fuzzer build)")
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("\(path): unreadable")
                continue
            }
            FuzzDecode.run(data)
            print("\(path): ok")
        }
    }
}
#endif
