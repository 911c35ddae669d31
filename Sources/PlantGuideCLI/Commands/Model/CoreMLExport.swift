import Foundation
import PlantClassifier
import PlantGuideCore

/// The parts of `plantguide model export --format coreml`: the weights written for the converter, the virtualenv with
/// coremltools, the scripts (bundled with the command line), and the reference the package is checked against.
enum CoreMLExport {
    /// Why the export could not be done, in words for the person who asked.
    struct Failure: Error {
        var message: String
    }

    /// The coremltools release the scripts are written and checked against.
    static let coremltools = "coremltools==9.0"

    // MARK: - Weights

    /// Writes the model's weights in PyTorch's layout, batch norm folded (`model.json` and one raw float32 file per
    /// tensor), as the scripts read them.
    static func writeInterchange(model: URL, to folder: URL) throws -> TorchLayoutWeights {
        let weights = try TorchLayoutWeights(contentsOf: model)
        let manifest = weights.manifest
        let labels = try coreMLLabels(model: model)
        guard labels.count == manifest.classes else {
            throw Failure(message: "the model has \(manifest.classes) classes but its label set names \(labels.count)")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var entries: [[String: Any]] = []
            for tensor in weights.tensors {
                let file = "\(tensor.name).f32"
                try tensor.values.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: folder.appendingPathComponent(file))
                entries.append(["name": tensor.name, "shape": tensor.shape, "file": file])
            }
            let description: [String: Any] = [
                "architecture": manifest.architecture.rawValue, "classes": manifest.classes, "inputSize": manifest.input.size,
                "mean": manifest.input.mean.map(Double.init), "std": manifest.input.std.map(Double.init), "labels": labels,
                "tensors": entries,
            ]
            try JSONSerialization.data(withJSONObject: description, options: [.sortedKeys])
                .write(to: folder.appendingPathComponent("model.json"))
        } catch {
            throw Failure(message: "cannot write the weights for the converter in \(folder.path): \(error.localizedDescription)")
        }
        return weights
    }

    /// The classifier's labels: each class's scientific name, with its PlantNet species id added where two classes
    /// share a name (Core ML's labels must differ).
    static func coreMLLabels(model: URL) throws -> [String] {
        let labels = try ModelLabelsCommand.labels(model: model)
        let counts = Dictionary(labels.map { ($0.scientificName, 1) }, uniquingKeysWith: +)
        return labels.map { label in
            guard counts[label.scientificName, default: 0] > 1 else { return label.scientificName }
            return "\(label.scientificName) [\(label.speciesId ?? "class \(label.index)")]"
        }
    }

    // MARK: - Reference

    /// A test image (size × size RGB, values 0…255, row by row) and PlantGuide's engine's logits for it, as raw
    /// float32 files in `folder`.
    static func reference(model: URL, manifest: ModelManifest, in folder: URL) throws -> (image: URL, logits: URL) {
        let size = manifest.input.size
        var pixels = [Float](repeating: 0, count: size * size * 3)
        var input = [Float](repeating: 0, count: size * size * 3)
        for y in 0..<size {
            for x in 0..<size {
                // Smooth stripes in every channel: a picture with structure at several scales, never saturated.
                let values = [
                    128 + 100 * sin(Float(x) / 9 + Float(y) / 31), 128 + 90 * cos(Float(y) / 13 - Float(x) / 47),
                    120 + 80 * sin(Float(x + y) / 17),
                ]
                for channel in 0..<3 {
                    let value = values[channel].rounded()
                    pixels[(y * size + x) * 3 + channel] = value
                    input[(channel * size + y) * size + x] = (value / 255 - manifest.input.mean[channel]) / manifest.input.std[channel]
                }
            }
        }
        let classifier = try Classifier(contentsOf: model)
        let logits = try classifier.logits(input, height: size, width: size)
        let image = folder.appendingPathComponent("image.f32"), reference = folder.appendingPathComponent("reference.f32")
        do {
            try pixels.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: image)
            try logits.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: reference)
        } catch {
            throw Failure(message: "cannot write the test image: \(error.localizedDescription)")
        }
        return (image, reference)
    }

    // MARK: - Python

    /// The virtualenv's Python with coremltools, made (and coremltools installed from PyPI) on first use.
    static func python(console: Console, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        let venv = environment["PLANTGUIDE_COREML_VENV"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? DataDirectory.resolve().url.appendingPathComponent("tools/coreml-venv")
        let python = venv.appendingPathComponent("bin/python")
        if FileManager.default.isExecutableFile(atPath: python.path),
            (try? run(python, ["-c", "import coremltools, numpy"]))?.status == 0 {
            return python
        }
        let system = environment["PLANTGUIDE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "python3"
        console.warn("Setting up \(coremltools) in \(venv.path) (once; about 60 MB from PyPI)…")
        let made = try run(URL(fileURLWithPath: "/usr/bin/env"), [system, "-m", "venv", venv.path])
        guard made.status == 0 else {
            throw Failure(message: "could not make a Python virtualenv with `\(system) -m venv` (install python3 and "
                + "python3-venv, or set PLANTGUIDE_PYTHON): \(made.tail)")
        }
        let pip = try run(
            venv.appendingPathComponent("bin/pip"),
            ["install", "--disable-pip-version-check", "--quiet", coremltools, "numpy"]
        )
        guard pip.status == 0 else {
            throw Failure(message: "could not install \(coremltools) from PyPI (is it reachable?): \(pip.tail)")
        }
        return python
    }

    /// Runs one of the bundled scripts and reads the JSON it prints last.
    static func runScript(_ name: String, python: URL, arguments: [String]) throws -> ScriptJSON {
        let script = try scriptsFolder().appendingPathComponent(name)
        let ran = try run(python, [script.path] + arguments)
        guard ran.status == 0 else {
            throw Failure(message: "\(name) failed (exit \(ran.status)): \(ran.tail)")
        }
        let text = String(decoding: ran.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // The export prints one line; the check prints one JSON document.
        let json = text.hasPrefix("{") ? text : String(text.split(separator: "\n").last ?? "")
        guard let value = try? JSONDecoder().decode(ScriptJSON.self, from: Data(json.utf8)) else {
            throw Failure(message: "\(name) printed no JSON summary: \(text.suffix(400))")
        }
        return value
    }

    /// Where the scripts are: PLANTGUIDE_COREML_SCRIPTS, else the command line's resource bundle beside the binary.
    static func scriptsFolder(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        if let folder = environment["PLANTGUIDE_COREML_SCRIPTS"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() { folders.append(executable.deletingLastPathComponent()) }
        folders.append(Bundle.main.bundleURL)
        for folder in folders {
            for bundle in ["PlantGuide_PlantGuideCLI.resources", "PlantGuide_PlantGuideCLI.bundle"] {
                let candidate = folder.appendingPathComponent(bundle).appendingPathComponent("coreml")
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("export_coreml.py").path) { return candidate }
            }
        }
        throw Failure(message: "the Core ML scripts are missing from this installation (looked beside \(folders.map(\.path)))")
    }

    struct Ran {
        var status: Int32
        var stdout: Data
        var stderr: Data

        /// The end of what the process said on standard error, for a message.
        var tail: String {
            let text = String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "no message" : String(text.split(separator: "\n").suffix(6).joined(separator: "\n"))
        }
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> Ran {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw Failure(message: "cannot run \(executable.path): \(error.localizedDescription)")
        }
        // Both pipes are drained while the process runs, so neither can fill up and stall it.
        let errors = ErrorCollector(err.fileHandleForReading)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Ran(status: process.terminationStatus, stdout: stdout, stderr: errors.finish())
    }

    /// Reads a pipe on its own thread until it ends.
    private final class ErrorCollector: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func finish() -> Data {
            done.wait()
            return data
        }
    }
}

/// JSON a script printed, read without a fixed shape.
enum ScriptJSON: Codable, Sendable {
    case object([String: ScriptJSON])
    case array([ScriptJSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ScriptJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ScriptJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    subscript(key: String) -> ScriptJSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
}
