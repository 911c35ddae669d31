// libFuzzer target over ImageDecoder.decode (and what runs on its output).
//
// A normal `swift build` compiles this as a small program that replays files through the same code
// (handy to re-run a crash input without the sanitizers). The fuzzer build defines PLANTGUIDE_FUZZ so
// there is no `main` and libFuzzer provides its own:
//
//   swift build --scratch-path .build-fuzz --product plantguide-fuzz-decode \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPLANTGUIDE_FUZZ -Xcc -fsanitize=fuzzer-no-link,address
//   .build-fuzz/debug/plantguide-fuzz-decode -max_total_time=600 -rss_limit_mb=2048 \
//     -dict=scripts/fuzz/images.dict fuzz-corpus Tests/PlantImagingTests/Fixtures
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
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    FuzzDecode.run(Data(bytes: start, count: count))
    return 0
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
