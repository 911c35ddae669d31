import ArgumentParser
import Foundation

/// `plantguide-bench`: measures PlantGuide against its targets and, where one is named, its peers, in
/// one run. Build it in release mode: `swift run -c release plantguide-bench`.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plantguide-bench",
        abstract: "Measure PlantGuide's performance targets and print a table.",
        discussion: """
            Run in release mode; debug builds are many times slower and the tool says so.

            Examples:
              swift run -c release plantguide-bench
              swift run -c release plantguide-bench --suite catalog --json
              swift run -c release plantguide-bench --suite uploads --markdown
            """
    )

    @Option(name: .customLong("suite"), help: "Run only these suites (\(Self.suites.map(\.name).joined(separator: ", "))).")
    var only: [String] = []

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Flag(help: "Print the rows with a target or a peer as a Markdown table (docs/benchmarks.md).")
    var markdown = false

    static let suites: [any BenchmarkSuite] = [
        CatalogBenchmark(),
        ImagingBenchmark(),
        ClassifierBenchmark(),
        PlantNetBenchmark(),
        StoreBenchmark(),
        RecognitionBenchmark(),
        UploadBenchmark(),
        CareBenchmark(),
        ReminderBenchmark(),
    ]

    func validate() throws {
        let known = Set(Self.suites.map(\.name))
        for name in only where !known.contains(name) {
            throw ValidationError("Unknown suite '\(name)'. Suites: \(known.sorted().joined(separator: ", ")).")
        }
    }

    func run() async throws {
        #if DEBUG
        if !json { print("warning: this is a debug build; run with `-c release` for real figures\n") }
        #endif
        var report = BenchmarkReport()
        for suite in Self.suites where only.isEmpty || only.contains(suite.name) {
            if !json { FileHandle.standardError.write(Data("running \(suite.name)…\n".utf8)) }
            report.rows += try await suite.run()
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else if markdown {
            print(report.markdown())
        } else {
            print(report.table())
        }
    }
}
