import Foundation

/// The CPU this process runs on, as Linux describes it in `/proc/cpuinfo`: what decides which kernels run fastest,
/// and what every speed figure should be read beside.
public struct CPUInfo: Sendable, Equatable {
    /// The model name, e.g. `AMD EPYC`; "unknown" where `/proc/cpuinfo` cannot be read.
    public var model: String
    /// The family and model numbers, which tell apart CPUs that share a model name.
    public var family: String
    /// The vector extensions among those that matter to the classifier (AVX2, FMA, F16C, the AVX-512 ones, AMX), in
    /// that order.
    public var vectorFlags: [String]

    /// The extensions ``vectorFlags`` reports, when the CPU has them.
    static let vectorExtensions = ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_tile"]

    /// This machine's CPU, read once.
    public static let current: CPUInfo = {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return CPUInfo(model: "unknown", family: "", vectorFlags: [])
        }
        let lines = text.split(separator: "\n")
        func field(_ name: String) -> String {
            lines.first { $0.hasPrefix(name) }?.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        let flags = Set(field("flags").split(separator: " ").map(String.init))
        return CPUInfo(
            model: field("model name"), family: "family \(field("cpu family")) model \(field("model"))",
            vectorFlags: vectorExtensions.filter(flags.contains)
        )
    }()

    /// Model name, family and vector extensions in one line: what a layer plan is measured for.
    public var signature: String { ([model, family] + vectorFlags).joined(separator: " ") }
}
