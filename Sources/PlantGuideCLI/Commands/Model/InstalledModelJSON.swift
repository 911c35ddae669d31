import Foundation
import PlantClassifier

/// One installed model in `model list --json`, `model info --json`, `model use --json` and `model remove --json`.
/// Facts an older model file does not record are `null` (unknown); every object has every key.
struct InstalledModelJSON: Encodable {
    var name: String
    var file: String
    var isDefault: Bool
    var bytes: Int
    var architecture: String?
    var classes: Int?
    var labels: String?
    var precision: String?
    var inputSize: Int?
    /// SHA-256 of the checkpoint the model was imported from.
    var sourceSHA256: String?
    /// The checkpoint's path or URL when imported.
    var source: String?
    var sourceName: String?
    var importedAt: Date?
    /// Whether the file records checksums of its weights (checked on every load).
    var checksums: Bool?
    /// `intact`, `changed` or `unknown` (no checksums recorded); only from `model info`, which reads the weights.
    var integrity: String?
    /// Why the file cannot be read as a model, for a damaged or foreign file.
    var problem: String?
    /// Every convolution and what runs it on this CPU; only from `model info --plan`.
    var plan: [PlannedLayer]?

    init(_ model: InstalledModel, integrity: String? = nil) {
        let manifest = model.manifest
        name = model.name
        file = model.url.path
        isDefault = model.isDefault
        bytes = model.bytes
        architecture = manifest?.architecture.rawValue
        classes = manifest?.classes
        labels = manifest?.labels
        precision = manifest?.precision.rawValue
        inputSize = manifest?.input.size
        sourceSHA256 = manifest?.sourceSHA256
        source = manifest?.source
        sourceName = manifest?.sourceName
        importedAt = manifest?.importedAt
        checksums = manifest?.hasChecksums
        self.integrity = integrity
        problem = model.problem
    }

    private enum CodingKeys: String, CodingKey {
        case name, file, isDefault, bytes, architecture, classes, labels, precision, inputSize, sourceSHA256, source,
            sourceName, importedAt, checksums, integrity, problem, plan
    }

    // Unknown facts are written as null so scripts see the same keys for old and new model files.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(file, forKey: .file)
        try container.encode(isDefault, forKey: .isDefault)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(architecture, forKey: .architecture)
        try container.encode(classes, forKey: .classes)
        try container.encode(labels, forKey: .labels)
        try container.encode(precision, forKey: .precision)
        try container.encode(inputSize, forKey: .inputSize)
        try container.encode(sourceSHA256, forKey: .sourceSHA256)
        try container.encode(source, forKey: .source)
        try container.encode(sourceName, forKey: .sourceName)
        try container.encode(importedAt, forKey: .importedAt)
        try container.encode(checksums, forKey: .checksums)
        try container.encode(integrity, forKey: .integrity)
        try container.encode(problem, forKey: .problem)
        // Only asked for with `model info --plan`, which loads the model.
        try container.encodeIfPresent(plan, forKey: .plan)
    }
}

extension Console {
    /// `48.9 MiB`.
    func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// A date as ISO 8601 in UTC, or `unknown`.
    func timestamp(_ date: Date?) -> String {
        guard let date else { return "unknown" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
