// libFuzzer targets over PlantGuide's parsers of untrusted input: `plantguide-fuzz TARGET [libFuzzer flags] [CORPUS…]`.
//
// Run them with scripts/fuzz/run [TARGET|all] [SECONDS]; scripts/test runs each briefly.
//
// A normal `swift build` compiles this as a small program that replays files through a target
// (handy to re-run a crash input without the sanitizers): `plantguide-fuzz decode crash-…`.
// The fuzzer build defines PLANTGUIDE_FUZZ and hands control to libFuzzer's driver:
//
//   swift build --scratch-path .build-fuzz --product plantguide-fuzz \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPLANTGUIDE_FUZZ -Xcc -fsanitize=fuzzer-no-link,address
import Foundation

#if PLANTGUIDE_FUZZ
// libFuzzer's driver, called from our own entry point because SwiftPM gives the executable its own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target chosen on the command line; set once before libFuzzer starts calling back.
nonisolated(unsafe) var selected: FuzzTarget?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, let selected else { return 0 }
    selected.run(Data(bytes: start, count: count))
    return 0
}
#endif

func usage() -> String {
    "usage: plantguide-fuzz TARGET [FILE…]\n\ntargets:\n"
        + FuzzTarget.all.map { "  \($0.name.padding(toLength: 11, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n")
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTarget.named(arguments[1]) else {
    FileHandle.standardError.write(Data((usage() + "\n").utf8))
    exit(2)
}

#if PLANTGUIDE_FUZZ
selected = target
// libFuzzer sees the program name and everything after the target name.
var driverArguments: [UnsafeMutablePointer<CChar>?] = ([arguments[0]] + arguments.dropFirst(2)).map { strdup($0) } + [nil]
var count = CInt(driverArguments.count - 1)
let status = driverArguments.withUnsafeMutableBufferPointer { buffer in
    var base = buffer.baseAddress
    return runFuzzerDriver(&count, &base) { start, size in fuzzTestOneInput(start, size) }
}
exit(status)
#else
var failed = false
for path in arguments.dropFirst(2) {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("\(path): unreadable")
        failed = true
        continue
    }
    target.run(data)
    print("\(path): ok")
}
exit(failed ? 1 : 0)
#endif
