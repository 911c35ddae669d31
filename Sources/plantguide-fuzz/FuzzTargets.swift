// The code each fuzz target drives, and the invariants it checks on what comes back.
//
// Every target takes arbitrary bytes, must never crash or hang, and turns an inconsistent result
// into a crash (`fatalError`) so libFuzzer reports it. Errors thrown for bad input are the expected
// outcome and are ignored.
import Foundation
import GRDB
import PlantCatalog
import PlantClassifier
import PlantGuideCore
import PlantForms
import PlantImaging
import PlantStore
import PlantArchive
import PlantStoreSQLite

/// One fuzz target: a name, what it drives, and where its committed seed corpus lives.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (Data) -> Void

    /// Every target, in the order `scripts/fuzz/run all` runs them.
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "decode", summary: "photo decoders (JPEG, PNG, WebP, HEIC) and what runs on their output", run: FuzzDecode.run),
        FuzzTarget(name: "checkpoint", summary: "PyTorch checkpoint import (zip, pickle, tensors) and the model file it writes", run: FuzzCheckpoint.run),
        FuzzTarget(name: "search", summary: "catalog search: query limits, folding, fuzzy matching", run: FuzzSearch.run),
        FuzzTarget(name: "multipart", summary: "form parsing: first line the boundary, the rest the multipart body", run: FuzzMultipart.run),
        FuzzTarget(name: "csv", summary: "CSV plant import into an in-memory collection", run: FuzzCSV.run),
        FuzzTarget(name: "archive", summary: "collection archive (ZIP) import into an in-memory collection", run: FuzzArchive.run),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A directory for the files a target must write, removed by the operating system's temp cleaning.
let scratchDirectory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

enum FuzzDecode {
    /// Budgets small enough that every input finishes quickly, large enough to reach real decoding.
    static let decoder = ImageDecoder(
        limits: DecodeLimits(minimumShortSide: 1, maximumPixels: 4_000_000, maximumBytes: 10_000_000), heifThreads: 1)
    static let preprocessor = Preprocessor(spec: ModelInputSpec(resize: 32, crop: 24, mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25]))

    static func run(_ data: Data) {
        guard let decoded = try? decoder.decode(data) else { return }
        let image = decoded.image
        if image.pixels.count != image.width * image.height * 3 || !(1...8).contains(decoded.orientation) {
            fatalError("decoder returned an inconsistent image")
        }
        _ = preprocessor.tensor(from: image)
        _ = PerceptualHash.dHash(image)
        _ = try? decoder.decode(data, minimumShortSide: 8)
    }
}

enum FuzzCheckpoint {
    static let checkpoint = scratchDirectory.appendingPathComponent("input.pth")
    static let model = scratchDirectory.appendingPathComponent("output.pgmodel")
    static let input = ModelInputSettings(size: 16, resize: 18, mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25])

    static func run(_ data: Data) {
        guard (try? data.write(to: checkpoint)) != nil else { fatalError("cannot write \(checkpoint.path)") }
        // The reader alone, then a whole import and a load of the model file it wrote.
        guard let parsed = try? TorchCheckpoint(data: data) else { return }
        for tensor in parsed.tensors where tensor.shape.contains(where: { $0 < 0 }) {
            fatalError("tensor \(tensor.name) has a negative dimension \(tensor.shape)")
        }
        try? FileManager.default.removeItem(at: model)
        for architecture in [ResNetArchitecture.resnet18, .resnet50] {
            let options = CheckpointImporter.Options(architecture: architecture, labels: "index", precision: .float16, input: input)
            guard let manifest = try? CheckpointImporter().importCheckpoint(at: checkpoint, options: options, to: model) else { continue }
            guard manifest.classes > 0 else { fatalError("imported a model with \(manifest.classes) classes") }
            guard let classifier = try? Classifier(contentsOf: model, threads: 1) else {
                fatalError("a model file the importer wrote does not load")
            }
            let pixels = [Float](repeating: 0.1, count: 3 * 16 * 16)
            guard let logits = try? classifier.logits(pixels, height: 16, width: 16), logits.count == manifest.classes else {
                fatalError("an imported model does not classify")
            }
        }
    }
}

enum FuzzSearch {
    static let catalog = PlantCatalog()

    static func run(_ data: Data) {
        let query = String(decoding: data, as: UTF8.self)
        guard let results = try? catalog.search(query, limit: 20) else { return }
        if results.count > 20 { fatalError("search returned more than its limit") }
        _ = try? catalog.plant(named: query)
        _ = try? catalog.suggestMatches(for: query, confidence: 0.5)
    }
}

enum FuzzMultipart {
    static func run(_ data: Data) {
        let bytes = [UInt8](data)
        let split = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
        let boundary = String(decoding: bytes[..<split], as: UTF8.self)
        let body = Data(bytes[min(split + 1, bytes.endIndex)...])
        guard let form = try? FormData.parse(contentType: "multipart/form-data; boundary=\(boundary)", body: body) else { return }
        // Files are slices of the body (field values may grow: invalid UTF-8 decodes to U+FFFD).
        if form.files.reduce(0, { $0 + $1.data.count }) > body.count { fatalError("parsed files are larger than the body") }
        _ = try? FormData.parse(contentType: "application/x-www-form-urlencoded", body: body)
    }
}

/// The bundled care guide, read once.
let careGuide = try? CareGuide.bundled()

/// An empty collection in memory, with photos written under the scratch directory.
func inMemoryCollection() -> PlantCollection? {
    guard let queue = try? DatabaseQueue(),
        let database = try? CollectionDatabase(writer: queue, path: ":memory:"),
        let guide = careGuide
    else { return nil }
    let directory = DataDirectory(url: scratchDirectory.appendingPathComponent("collection"))
    let catalog = FuzzSearch.catalog
    return PlantCollection(
        store: database, photos: PhotoLibrary(directory: directory, encoder: .storingOriginal), careGuide: guide,
        lookup: { name in try? catalog.plant(named: name) }
    )
}

/// Runs the collection's async work to its end from the fuzzer's synchronous entry point. The in-memory SQLite store
/// never waits on anything else, so the task always finishes.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let result = BlockingResult<T>()
    Task {
        result.value = await work()
        result.done.signal()
    }
    result.done.wait()
    guard let value = result.value else { fatalError("the collection's work ended without a result") }
    return value
}

/// The value a ``blocking(_:)`` task hands back: written once by the task, read after the semaphore.
final class BlockingResult<T>: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var value: T?
}

enum FuzzCSV {
    static func run(_ data: Data) {
        guard let collection = inMemoryCollection() else { fatalError("cannot open an in-memory collection") }
        let text = String(decoding: data, as: UTF8.self)
        guard let report = blocking({ try? await CSVPlantImport(collection: collection).run(text) }) else { return }
        guard let plants = try? collection.sqlite?.plants(), plants.count == report.added.count else {
            fatalError("the import report does not match what was added")
        }
    }
}

enum FuzzArchive {
    static let file = scratchDirectory.appendingPathComponent("input.zip")

    static func run(_ data: Data) {
        guard (try? data.write(to: file)) != nil else { fatalError("cannot write \(file.path)") }
        guard let collection = inMemoryCollection() else { fatalError("cannot open an in-memory collection") }
        let archive = CollectionArchive(store: collection.store, photos: collection.photos)
        guard let summary = blocking({ try? await archive.importArchive(from: file) }) else { return }
        guard let plants = try? collection.sqlite?.plants(), plants.count == summary.plantsAdded else {
            fatalError("the import summary does not match what was added")
        }
    }
}
