import Foundation

extension BenchmarkReport {
    /// A Markdown table of the rows that have a target or a peer (docs/benchmarks.md), then the
    /// machine line. Informational rows are left to the full table and `--json`.
    func markdown() -> String {
        let header = "| measure | PlantGuide | target | met | peer | peer value | ratio |\n|---|---|---|---|---|---|---|"
        let lines = rows.filter { $0.target != nil || $0.peerName != nil }.map { row in
            let cells = [
                "\(row.suite): \(row.name)", "\(BenchmarkRow.format(row.value)) \(row.unit)", row.target ?? "",
                row.met.map { $0 ? "yes" : "**no**" } ?? "", row.peerName ?? "",
                row.peerValue.map { "\(BenchmarkRow.format($0)) \(row.unit)" } ?? "",
                row.ratio.map { String(format: "%.2f×", $0) } ?? "",
            ]
            return "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        return ([header] + lines).joined(separator: "\n") + "\n\n\(machine.summary)"
    }
}
