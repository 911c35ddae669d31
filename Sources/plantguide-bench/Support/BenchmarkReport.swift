import Foundation
import PlantClassifier

/// A group of related measurements, e.g. everything about the catalog.
protocol BenchmarkSuite: Sendable {
    /// Short name used by `--suite`.
    var name: String { get }
    /// Runs the measurements and returns one row per figure.
    func run() async throws -> [BenchmarkRow]
}

/// One measured figure, with its target and, where there is one, the peer's figure from the same run.
struct BenchmarkRow: Codable, Sendable {
    var suite: String
    var name: String
    var value: Double
    var unit: String
    /// The target, e.g. "< 30 ms"; `nil` if the row is informational.
    var target: String?
    /// Whether the target is met; `nil` without a target.
    var met: Bool?
    var peerName: String?
    var peerValue: Double?

    /// `value / peerValue`, when there is a peer.
    var ratio: Double? {
        guard let peerValue, peerValue > 0 else { return nil }
        return value / peerValue
    }

    init(
        suite: String, name: String, value: Double, unit: String,
        below limit: Double? = nil, atLeast floor: Double? = nil, peer: (name: String, value: Double)? = nil
    ) {
        self.suite = suite
        self.name = name
        self.value = value
        self.unit = unit
        if let limit {
            target = "< \(Self.format(limit)) \(unit)"
            met = value < limit
        }
        if let floor {
            target = "≥ \(Self.format(floor)) \(unit)"
            met = value >= floor
        }
        peerName = peer?.name
        peerValue = peer?.value
    }

    static func format(_ value: Double) -> String {
        switch abs(value) {
        case 0: "0"
        case ..<0.01: String(format: "%.4f", value)
        case ..<10: String(format: "%.3f", value)
        case ..<1000: String(format: "%.1f", value)
        default: String(format: "%.0f", value)
        }
    }
}

/// All rows of one run.
struct BenchmarkReport: Codable {
    var machine = MachineInfo()
    var rows: [BenchmarkRow] = []

    struct MachineInfo: Codable {
        var cores = ProcessInfo.processInfo.activeProcessorCount
        var memoryGiB = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        var date = ISO8601DateFormatter().string(from: Date())
        #if DEBUG
        var build = "debug"
        #else
        var build = "release"
        #endif
        /// The CPU's model name as Linux reports it ("unknown" elsewhere).
        var cpu = CPUInfo.current.model
        /// The CPU's vector extensions that decide which kernels run (AVX2, FMA, F16C, the AVX-512 ones).
        var cpuFlags = CPUInfo.current.vectorFlags

        /// What the footer of a report says about the machine.
        var summary: String {
            "\(cores) cores, \(String(format: "%.0f", memoryGiB)) GiB, \(cpu) (\(cpuFlags.isEmpty ? "no AVX2" : cpuFlags.joined(separator: " "))), "
                + "\(build) build, \(date)"
        }
    }

    /// A fixed-width table for people.
    func table() -> String {
        let header = ["suite", "measure", "value", "target", "met", "peer", "peer value", "ratio"]
        let cells = rows.map { row in
            [
                row.suite, row.name, "\(BenchmarkRow.format(row.value)) \(row.unit)", row.target ?? "",
                row.met.map { $0 ? "yes" : "NO" } ?? "", row.peerName ?? "",
                row.peerValue.map { "\(BenchmarkRow.format($0)) \(row.unit)" } ?? "",
                row.ratio.map { String(format: "%.2f×", $0) } ?? "",
            ]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + cells.map(line)).joined(separator: "\n")
            + "\n\n\(machine.summary)"
    }
}
