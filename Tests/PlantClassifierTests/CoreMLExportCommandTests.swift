import Foundation
import PlantGuideTestSupport
import Testing

/// `plantguide model export --format coreml` and `model labels --format plantlabels`, as a person runs them, without
/// Python's help: the labels file, and every refusal before any conversion (the conversion itself, which needs
/// coremltools from PyPI, is checked end to end by Tests/CoreML/coreml_check.py in scripts/test).
@Suite struct CoreMLExportCommandTests {
    let checkpoint = FixtureModels.url("tiny-resnet18.pth")

    @Test func thePlantLabelsFileHasEveryClassInTheSpecsShape() throws {
        let runner = try CommandLineRunner()
        defer { runner.cleanUp() }
        let file = runner.home.appendingPathComponent("PlantLabels.json")
        let written = try runner.run(["model", "labels", "--format", "plantlabels", "--output", file.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("Wrote 1081 labels to \(file.path)"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(Set(json.keys) == ["labels", "version", "source"])
        let labels = try #require(json["labels"] as? [[String: Any]])
        #expect(labels.count == 1081)
        #expect(labels.compactMap { $0["index"] as? Int } == Array(0..<1081))
        #expect(labels.allSatisfy { Set($0.keys) == ["index", "scientificName", "commonNames", "family"] })
        #expect(labels.allSatisfy { ($0["family"] as? String)?.isEmpty == false })
        // The same names as `model labels --json`.
        let listed = try #require(try runner.run(["model", "labels", "--json"]).json() as? [[String: Any]])
        #expect(labels.map { $0["scientificName"] as? String } == listed.map { $0["scientificName"] as? String })
        #expect((json["source"] as? String)?.contains("PlantNet-300K") == true)

        // To standard output without --output; mistakes are refused.
        let printed = try runner.run(["model", "labels", "--format", "plantlabels"])
        #expect(printed.status == 0 && printed.stdout.hasPrefix("{"))
        let stray = try runner.run(["model", "labels", "--output", file.path])
        #expect(stray.status == 64 && stray.stderr.contains("add --format plantlabels"), "\(stray.stderr)")
        let doubled = try runner.run(["model", "labels", "--format", "plantlabels", "--json"])
        #expect(doubled.status == 64, "\(doubled.stderr)")
    }

    @Test func theExportRefusesClearlyBeforeConverting() throws {
        let runner = try CommandLineRunner(environment: [
            "PLANTGUIDE_COREML_VENV": "/nonexistent/venv", "PLANTGUIDE_PYTHON": "python-that-does-not-exist",
        ])
        defer { runner.cleanUp() }
        let none = try runner.run(["model", "export", "--format", "coreml", "--output", runner.home.appendingPathComponent("a.mlpackage").path])
        #expect(none.status == 1 && none.stderr.contains("no model is installed"), "\(none.stderr)")
        #expect(try runner.run(["model", "import", checkpoint.path, "--arch", "resnet18"]).status == 0)
        let format = try runner.run(["model", "export", "--format", "onnx"])
        #expect(format.status == 64, "\(format.stderr)")
        let notAPackage = try runner.run(["model", "export", "--format", "coreml", "--output", "model.zip"])
        #expect(notAPackage.status == 64 && notAPackage.stderr.contains(".mlpackage"), "\(notAPackage.stderr)")
        let unknown = try runner.run(["model", "export", "resnet99-nothing", "--format", "coreml"])
        #expect(unknown.status != 0 && !unknown.killedBySignal && unknown.stderr.contains("resnet99-nothing"), "\(unknown.stderr)")
        // An existing package is never replaced without --force (nothing is converted).
        let existing = runner.home.appendingPathComponent("Kept.mlpackage")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        let kept = try runner.run(["model", "export", "--format", "coreml", "--output", existing.path])
        #expect(kept.status == 1 && kept.stderr.contains("--force"), "\(kept.stderr)")
        // Without Python the message says what to install; no package is left behind.
        let target = runner.home.appendingPathComponent("PlantNet300K.mlpackage")
        let noPython = try runner.run(["model", "export", "--format", "coreml", "--output", target.path])
        #expect(noPython.status == 1 && noPython.stderr.contains("python3-venv"), "\(noPython.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }
}
